/** The one canonical JSON and SHA-256 of core: each documented behaviour, and agreement with JSON.stringify on JSON data. */
import { createHash } from 'node:crypto';
import { canonicalJson, defaultFingerprint, sha256Hex } from '../../src/http/fingerprint';
import * as adapter from '../../src/adapter';
import type { HttpRequest } from '../../src/http/types';

/** A neutral request as an adapter builds it: a body parser's result, or none, and the raw bytes. */
const makeRequest = (init: { rawBody?: Buffer; body?: unknown }): HttpRequest => ({
  method: 'POST',
  url: '/webhook',
  headers: {},
  rawBody: init.rawBody,
  body: init.body,
  native: {},
});

/**
 * A reference the long way round: rebuild every object with sorted keys, then let JSON.stringify
 * write it. Only valid without integer-like keys, which JS objects always list first (their order
 * is tested on its own below).
 */
function sortedStringify(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort())
        Object.defineProperty(out, key, {
          value: sort((v as Record<string, unknown>)[key]),
          enumerable: true,
        });
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** Deterministic pseudo-random JSON values (a tiny LCG, so a failure reproduces). */
function randomJson(seed: number): unknown {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
  const strings = [
    '',
    'a',
    'B',
    'é',
    'Ω',
    '😀',
    '"q"',
    'back\\slash',
    '\u0000\u001f',
    '\u2028',
    'toJSON',
    '__proto__',
    '1a',
    '-1',
  ];
  const numbers = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 2 ** 53, -123.456, 5e-324];
  const build = (depth: number): unknown => {
    const kind = depth === 0 ? 6 : next(depth > 3 ? 5 : 7);
    if (kind === 0) return null;
    if (kind === 1) return next(2) === 0;
    if (kind === 2 || kind === 3) return numbers[next(numbers.length)];
    if (kind === 4) return strings[next(strings.length)];
    if (kind === 5) return Array.from({ length: next(4) }, () => build(depth + 1));
    const record: Record<string, unknown> = {};
    for (let i = next(6); i > 0; i--) {
      const key = strings[next(strings.length)] ?? '';
      Object.defineProperty(record, key, {
        value: build(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return record;
  };
  return build(0);
}

describe('canonicalJson', () => {
  it('is what /adapter exports, for preset authors', () => {
    expect(adapter.canonicalJson).toBe(canonicalJson);
    expect(adapter.sha256Hex).toBe(sha256Hex);
  });

  it('sorts keys at every level and drops whitespace', () => {
    expect(canonicalJson(JSON.parse('{ "b": 1, "a": { "d": [2, 3], "c": null } }'))).toBe(
      '{"a":{"c":null,"d":[2,3]},"b":1}',
    );
  });

  it('sorts keys by UTF-16 code units, not by locale or number', () => {
    expect(
      canonicalJson({ b: 1, a: 2, B: 3, é: 4, '10': 5, '2': 6, '': 7, '😀': 8, '\uffff': 9 }),
    ).toBe('{"":7,"10":5,"2":6,"B":3,"a":2,"b":1,"é":4,"😀":8,"\uffff":9}');
  });

  it('agrees with JSON.stringify of the key-sorted value on 300 generated JSON documents, and parses back to them', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const parsed: unknown = JSON.parse(JSON.stringify(randomJson(seed)));
      const text = canonicalJson(parsed);
      expect({ seed, text }).toEqual({ seed, text: sortedStringify(parsed) });
      expect(JSON.parse(text)).toEqual(parsed);
    }
  });

  it('keeps a "__proto__" member that JSON.parse made, and a "toJSON" member that is data', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"b":1,"a":2},"toJSON":"x"}'))).toBe(
      '{"__proto__":{"a":2,"b":1},"toJSON":"x"}',
    );
  });

  describe('values JSON.parse cannot produce', () => {
    it('writes a bigint as its digits, anywhere, the same as the equal number', () => {
      expect(canonicalJson(12345678901234567890n)).toBe('12345678901234567890');
      expect(canonicalJson({ a: -5n, b: [0n] })).toBe('{"a":-5,"b":[0]}');
      expect(canonicalJson({ n: 1n })).toBe(canonicalJson({ n: 1 }));
      expect(() => JSON.stringify(1n)).toThrow(TypeError);
    });

    it('never calls BigInt.prototype.toJSON', () => {
      const proto = BigInt.prototype as { toJSON?: () => unknown };
      proto.toJSON = () => 'patched';
      try {
        expect(canonicalJson({ n: 7n })).toBe('{"n":7}');
      } finally {
        delete proto.toJSON;
      }
    });

    it('writes a Date as its ISO string, an invalid Date as null', () => {
      const date = new Date(Date.UTC(2024, 4, 14, 10, 31, 5));
      expect(canonicalJson(date)).toBe('"2024-05-14T10:31:05.000Z"');
      expect(canonicalJson({ at: date, never: new Date(NaN) })).toBe(
        '{"at":"2024-05-14T10:31:05.000Z","never":null}',
      );
    });

    it("calls toJSON once, with the member name, and writes its result without calling the result's own toJSON", () => {
      const names: string[] = [];
      const probe = {
        toJSON: (name: string) => {
          names.push(name);
          return { z: 1, a: name };
        },
      };
      expect(canonicalJson({ k: probe, list: [probe, probe] })).toBe(
        '{"k":{"a":"k","z":1},"list":[{"a":"0","z":1},{"a":"1","z":1}]}',
      );
      expect(canonicalJson(probe)).toBe('{"a":"","z":1}');
      expect(names).toEqual(['k', '0', '1', '']);
      const inner = { toJSON: () => 'inner' };
      const outer = { toJSON: () => inner };
      expect(canonicalJson(outer)).toBe(JSON.stringify(outer));
      expect(canonicalJson(outer)).toBe('{}');
    });

    it('leaves out a member whose toJSON returns undefined, as JSON.stringify does', () => {
      const gone = { toJSON: () => undefined };
      expect(canonicalJson({ a: gone, b: 1 })).toBe('{"b":1}');
      expect(canonicalJson([gone])).toBe('[null]');
    });

    it.each([
      ['undefined', undefined],
      ['a function', () => 1],
      ['a symbol', Symbol('s')],
    ])(
      'leaves out a member that is %s, writes null for it in an array and at the top',
      (_label, value) => {
        expect(canonicalJson({ a: 1, x: value })).toBe('{"a":1}');
        expect(canonicalJson([1, value, 2])).toBe('[1,null,2]');
        expect(canonicalJson(value)).toBe('null');
        expect(canonicalJson({ a: 1, x: value })).toBe(JSON.stringify({ a: 1, x: value }));
        expect(canonicalJson([1, value, 2])).toBe(JSON.stringify([1, value, 2]));
      },
    );

    it('ignores symbol keys', () => {
      expect(canonicalJson({ [Symbol('k')]: 1, a: 2 })).toBe('{"a":2}');
    });

    it.each([
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['-Infinity', -Infinity],
    ])('writes %s as null', (_label, value) => {
      expect(canonicalJson(value)).toBe('null');
      expect(canonicalJson({ v: value, w: [value] })).toBe('{"v":null,"w":[null]}');
    });

    it('writes -0 as 0', () => {
      expect(canonicalJson(-0)).toBe('0');
    });

    it('writes a hole in a sparse array as null', () => {
      const sparse = [1, 2, 3];
      delete sparse[1];
      expect(canonicalJson(sparse)).toBe('[1,null,3]');
      expect(canonicalJson(new Array(2))).toBe('[null,null]');
    });

    it('unboxes boxed primitives', () => {
      expect(
        canonicalJson({ n: Object(1.5), s: Object('x'), b: Object(false), i: Object(9n) }),
      ).toBe('{"b":false,"i":9,"n":1.5,"s":"x"}');
    });

    it('writes other objects as their own enumerable string keys, a Buffer through its toJSON', () => {
      class Point {
        constructor(
          public y: number,
          public x: number,
        ) {}
        get sum() {
          return this.x + this.y;
        }
      }
      expect(canonicalJson(new Point(2, 1))).toBe('{"x":1,"y":2}');
      expect(canonicalJson(new Map([['a', 1]]))).toBe('{}');
      expect(canonicalJson(new Set([1]))).toBe('{}');
      expect(canonicalJson(Buffer.from([1, 2]))).toBe('{"data":[1,2],"type":"Buffer"}');
      expect(canonicalJson(Object.create(null))).toBe('{}');
    });

    it('throws a TypeError on a cycle, and accepts the same object twice when it is no cycle', () => {
      const loop: Record<string, unknown> = { a: 1 };
      loop.self = loop;
      expect(() => canonicalJson(loop)).toThrow(TypeError);
      const list: unknown[] = [];
      list.push({ list });
      expect(() => canonicalJson(list)).toThrow(TypeError);
      const shared = { v: 1 };
      expect(canonicalJson({ a: shared, b: [shared, shared] })).toBe(
        '{"a":{"v":1},"b":[{"v":1},{"v":1}]}',
      );
    });
  });
});

describe('sha256Hex', () => {
  it('is the lower-case hex SHA-256 of a string (as UTF-8) or of bytes', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex(Buffer.from('abc'))).toBe(sha256Hex('abc'));
    expect(sha256Hex('é')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('hex'),
    );
    expect(sha256Hex('')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('defaultFingerprint', () => {
  it('hashes the canonical JSON of a parsed body, so key order does not matter', () => {
    const a = defaultFingerprint(
      makeRequest({ body: JSON.parse('{"b":1,"a":[1,{"d":2,"c":3}]}') }),
    );
    expect(a).toBe(sha256Hex('{"a":[1,{"c":3,"d":2}],"b":1}'));
    expect(defaultFingerprint(makeRequest({ body: { a: [1, { c: 3, d: 2 }], b: 1 } }))).toBe(a);
  });
});

describe('deeply nested bodies', () => {
  // A parsed body with no raw bytes beside it (Nest without rawBody, a body parser that kept
  // none) is fingerprinted from its canonical JSON. A few KB of `[` used to overflow the stack
  // there, so the request was answered 500 before any claim.
  const DEPTH = 20_000;
  const deepArrays = () => JSON.parse(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`);
  const deepObjects = () => JSON.parse(`${'{"b":1,"a":'.repeat(DEPTH)}null${'}'.repeat(DEPTH)}`);

  it('writes any depth of arrays and objects, as JSON.stringify would', () => {
    expect(canonicalJson(deepArrays())).toBe(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`);
    expect(canonicalJson(deepObjects())).toBe(
      `${'{"a":'.repeat(DEPTH)}null${',"b":1}'.repeat(DEPTH)}`,
    );
  });

  it('fingerprints a deeply nested parsed body without raw bytes', () => {
    expect(defaultFingerprint(makeRequest({ rawBody: undefined, body: deepArrays() }))).toBe(
      sha256Hex(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`),
    );
  });

  it('still finds a cycle deep down, and leaves out what JSON.stringify leaves out at depth', () => {
    const root: unknown[] = [];
    let inner = root;
    for (let i = 0; i < 10_000; i++) {
      const next: unknown[] = [];
      inner.push(next);
      inner = next;
    }
    inner.push({ keep: 1, drop: undefined, fn: () => 0 }, undefined);
    expect(canonicalJson(root)).toBe(`${'['.repeat(10_001)}{"keep":1},null${']'.repeat(10_001)}`);
    inner.push(root);
    expect(() => canonicalJson(root)).toThrow(TypeError);
  });
});
