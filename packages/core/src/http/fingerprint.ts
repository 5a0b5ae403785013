/** @module Request fingerprints: SHA-256 of the raw body, or of a canonical JSON of the parsed body. */
// A namespace import: a runtime whose node:crypto lacks `hash` still loads this module.
import * as crypto from 'node:crypto';
import type { HttpRequest } from './types';

/**
 * One-shot hashing where the runtime has it (Node 20.12 and later): no Hash object is built per
 * request, which is most of a small body's fingerprint cost. `undefined` elsewhere.
 */
const hashOnce: typeof crypto.hash | undefined =
  typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** Lower-case hex SHA-256 of `data` (64 characters: what the receipts' `fingerprint` column holds). */
export function sha256Hex(data: Buffer | string): string {
  return hashOnce
    ? hashOnce('sha256', data, 'hex')
    : crypto.createHash('sha256').update(data).digest('hex');
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
 * - a **cycle** throws a `TypeError`, as in `JSON.stringify`;
 * - **any depth** is written (no recursion, time linear in the output), where `JSON.stringify`
 *   overflows the call stack at a few thousand levels.
 *
 * @example
 * canonicalJson(JSON.parse('{ "b": 1, "a": { "d": [2, 3], "c": null } }')); // '{"a":{"c":null,"d":[2,3]},"b":1}'
 */
export function canonicalJson(value: unknown): string {
  // No recursion, and no text built per level: a parsed body nested thousands of levels deep (a
  // few KB of `[`) would overflow the call stack, and copying each level's text into its parent's
  // would take time quadratic in the depth. Each open array or object is a frame of an explicit
  // stack, and every piece of text is written once, in order, to `out`.
  const root = prepare(value, '');
  const scalar = scalarText(root);
  if (scalar !== CONTAINER) return scalar ?? 'null';
  const out = { text: '' };
  const open = new Set<object>();
  const stack: Frame[] = [];
  enter(root as object, { open, stack, out }, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const count = frame.array ? (frame.object as unknown[]).length : frame.names.length;
    if (frame.index >= count) {
      stack.pop();
      open.delete(frame.object);
      out.text += frame.array ? ']' : '}';
      continue;
    }
    const index = frame.index++;
    const name = frame.array ? index : frame.names[index]!;
    const member = prepare(
      frame.array
        ? (frame.object as unknown[])[index]
        : (frame.object as Record<string, unknown>)[name],
      name,
    );
    const text = scalarText(member);
    // An object member with nothing to write is left out; in an array it is `null`.
    if (text === undefined && !frame.array) continue;
    let prefix = frame.written++ > 0 ? ',' : '';
    if (!frame.array) prefix += `${JSON.stringify(name)}:`;
    if (text === CONTAINER) enter(member as object, { open, stack, out }, prefix);
    else out.text += prefix + (text ?? 'null');
  }
  return out.text;
}

/** An array or object being written: where it is, and how many members it wrote. */
interface Frame {
  readonly object: object;
  readonly array: boolean;
  /** An object's own enumerable string keys, sorted; empty for an array. */
  readonly names: readonly string[];
  /** The next item or member to look at. */
  index: number;
  /** Items or members written so far (for the commas). */
  written: number;
}

/** What {@link scalarText} returns for an array or object, which gets a frame instead. */
const CONTAINER: unique symbol = Symbol('container');

/** The canonical text of a prepared scalar, `undefined` for what an object member leaves out, or {@link CONTAINER}. */
function scalarText(value: unknown): string | undefined | typeof CONTAINER {
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
  return value === null ? 'null' : CONTAINER;
}

/** Opens an array or object: `prefix` and its bracket written, its frame pushed. A cycle throws, as in `JSON.stringify`. */
function enter(
  object: object,
  state: { open: Set<object>; stack: Frame[]; out: { text: string } },
  prefix: string,
): void {
  if (state.open.has(object)) throw new TypeError('canonicalJson: the value contains a cycle');
  state.open.add(object);
  const array = Array.isArray(object);
  state.stack.push({
    object,
    array,
    names: array ? NO_NAMES : Object.keys(object).sort(),
    index: 0,
    written: 0,
  });
  state.out.text += array ? `${prefix}[` : `${prefix}{`;
}

const NO_NAMES: readonly string[] = [];

/**
 * What `JSON.stringify` does to a value before writing it: `toJSON` (never for bigints), then
 * unboxing. `name` is the member name, or the index in an array (passed to `toJSON` as a string).
 */
function prepare(value: unknown, name: string | number): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return value;
  const withJson = value as { toJSON?: (key: string) => unknown };
  const prepared = typeof withJson.toJSON === 'function' ? withJson.toJSON(String(name)) : value;
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
