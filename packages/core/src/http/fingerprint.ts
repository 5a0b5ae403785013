/** @module Request fingerprints: SHA-256 of the raw body, or of a canonical JSON of the parsed body. */
import { createHash } from 'node:crypto';
import type { HttpRequest } from './types';

/** Lower-case hex SHA-256 of `data` (64 characters: what the receipts' `fingerprint` column holds). */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Canonical JSON: the text `JSON.stringify` would give, with object keys sorted at every level and
 * no whitespace, so two parses of one payload give one text whatever their key order or spacing.
 * Fingerprints are hashes of this text and stored receipts hold them, so what it gives for
 * JSON-parsed data (objects, arrays, strings, finite numbers, booleans, `null`) never changes.
 *
 * For values `JSON.parse` cannot produce, exactly:
 * - **keys** are sorted by UTF-16 code units (`Array.prototype.sort`); only own enumerable string
 *   keys count, symbol keys are ignored;
 * - **`toJSON`**: a value with a `toJSON` method is replaced by what it returns, called once with
 *   the member name (the index as a string in arrays, `''` at the top), as `JSON.stringify` does;
 *   the result is then written as it is, without calling its own `toJSON`;
 * - **`Date`**: through its `toJSON`, the ISO string (`"2024-05-14T10:31:05.000Z"`); an invalid
 *   date gives `null`;
 * - **bigint**: its decimal digits as a JSON number (`12345678901234567890`), so `1n` and `1`
 *   give the same text; `JSON.stringify` would throw instead, and a `BigInt.prototype.toJSON`
 *   is never called;
 * - **`undefined`, functions and symbols**: an object member with such a value (also one whose
 *   `toJSON` returns one) is left out; in an array, and at the top, they become `null`; a hole
 *   in a sparse array is `null` too;
 * - **`NaN`, `Infinity`, `-Infinity`** become `null`, and `-0` is `0`, as in `JSON.stringify`;
 * - **boxed** `Number`, `String`, `Boolean` and `BigInt` objects are written as their primitive;
 * - **other objects** (`Map`, `Set`, class instances, `Uint8Array`) as their own enumerable
 *   string keys, sorted (so a `Map` is `{}`); a `Buffer` goes through its `toJSON`:
 *   `{"data":[…],"type":"Buffer"}`;
 * - a **cycle** throws a `TypeError`, as in `JSON.stringify`.
 *
 * @example
 * canonicalJson(JSON.parse('{ "b": 1, "a": { "d": [2, 3], "c": null } }')); // '{"a":{"c":null,"d":[2,3]},"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(prepare(value, ''), new Set()) ?? 'null';
}

/** What `JSON.stringify` does to a value before writing it: `toJSON` (never for bigints), then unboxing. */
function prepare(value: unknown, name: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return value;
  const withJson = value as { toJSON?: (key: string) => unknown };
  const prepared = typeof withJson.toJSON === 'function' ? withJson.toJSON(name) : value;
  if (
    prepared instanceof Number ||
    prepared instanceof String ||
    prepared instanceof Boolean ||
    prepared instanceof BigInt
  ) {
    return prepared.valueOf();
  }
  return prepared;
}

/** The canonical text of a prepared value, or `undefined` for what an object member leaves out. */
function write(value: unknown, open: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  const object = value as object;
  if (open.has(object)) throw new TypeError('canonicalJson: the value contains a cycle');
  open.add(object);
  let text: string;
  if (Array.isArray(object)) {
    const items: string[] = [];
    for (let index = 0; index < object.length; index++) {
      items.push(write(prepare(object[index], String(index)), open) ?? 'null');
    }
    text = `[${items.join(',')}]`;
  } else {
    const record = object as Record<string, unknown>;
    const members: string[] = [];
    for (const name of Object.keys(record).sort()) {
      const member = write(prepare(record[name], name), open);
      if (member !== undefined) members.push(`${JSON.stringify(name)}:${member}`);
    }
    text = `{${members.join(',')}}`;
  }
  open.delete(object);
  return text;
}

/**
 * The default fingerprint: SHA-256 of the raw body bytes. When the adapter has no raw bytes (a
 * body parser consumed them), it falls back to SHA-256 of a string body's UTF-8 bytes, or of the
 * {@link canonicalJson} of the parsed body; `null` (nothing to compare) when there is no body.
 * The fallback ignores key order and whitespace, so it is weaker than the raw-bytes hash: keep
 * the raw body (docs/guides/raw-body.md) where payloads matter.
 */
export function defaultFingerprint(request: HttpRequest): string | null {
  if (request.rawBody !== undefined) return sha256Hex(request.rawBody);
  const { body } = request;
  if (body === undefined) return null;
  if (typeof body === 'string') return sha256Hex(body);
  if (Buffer.isBuffer(body)) return sha256Hex(body);
  return sha256Hex(canonicalJson(body));
}
