/** @module RequestKey: the (provider, external id) pair a receipt is unique on. */
import { MAX_KEY_BYTES, MAX_KEY_LENGTH } from './constants';
import { InvalidRequestKey, type KeyField } from './errors';

/** What a provider's id may arrive as: Telegram's `update_id` is a number, Click's ids can exceed 2^53. */
export type ExternalId = string | number | bigint;

/** Anything with the two key fields; a {@link RequestKey} is one. */
export interface KeyLike {
  readonly provider: string;
  readonly externalId: string;
}

/** An unpaired UTF-16 surrogate: a string holding one has no UTF-8 form. */
export const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether `value` holds a NUL or any surrogate: one scan that lets the usual key (no such
 * character) skip both checks. A loop over the UTF-16 units, not a regular expression: a key is
 * checked on every delivery, and for a key of a few dozen characters the loop costs a fraction
 * of a call into the regular expression engine.
 */
function suspect(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit === 0 || (unit >= 0xd800 && unit <= 0xdfff)) return true;
  }
  return false;
}

/**
 * Checks one key part as every store can hold it: not empty, no NUL (PostgreSQL refuses it in
 * text), no unpaired surrogate (not valid UTF-8), at most {@link MAX_KEY_LENGTH} characters and
 * {@link MAX_KEY_BYTES} UTF-8 bytes. Returns it unchanged.
 * @throws {InvalidRequestKey} naming `field`.
 */
export function checkKeyPart(field: KeyField, value: string): string {
  if (value.length === 0) throw new InvalidRequestKey(field, 'is empty');
  if (suspect(value)) {
    if (value.includes('\u0000'))
      throw new InvalidRequestKey(field, 'contains a NUL character, which databases cannot store');
    if (LONE_SURROGATE.test(value))
      throw new InvalidRequestKey(field, 'contains an unpaired UTF-16 surrogate (not valid UTF-8)');
  }
  // Cheap exits first: most keys are short ASCII.
  if (value.length > MAX_KEY_LENGTH) {
    let codePoints = 0;
    for (const _ of value) codePoints++;
    if (codePoints > MAX_KEY_LENGTH) {
      throw new InvalidRequestKey(
        field,
        `is ${codePoints} characters long; the limit is ${MAX_KEY_LENGTH}`,
      );
    }
  }
  if (value.length * 3 > MAX_KEY_BYTES) {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MAX_KEY_BYTES)
      throw new InvalidRequestKey(
        field,
        `is ${bytes} bytes in UTF-8; the limit is ${MAX_KEY_BYTES}`,
      );
  }
  return value;
}

function externalIdToString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new InvalidRequestKey(
        'externalId',
        `is the number ${value}; only safe integers are accepted (pass larger ids as strings)`,
      );
    }
    return String(value);
  }
  throw new InvalidRequestKey(
    'externalId',
    `must be a string, number or bigint, got ${value === null ? 'null' : typeof value}`,
  );
}

/**
 * A provider's id field as a preset found it, for {@link RequestKey} to judge: absent
 * (`undefined`, `null`, `''`) is `undefined`, which the engine answers 400
 * `ERR_IDEMPOTENCY_KEY_MISSING`; any other value is returned unchanged, so an object, array,
 * boolean or unsafe number reaches `RequestKey` and is answered 400 `ERR_IDEMPOTENCY_KEY_INVALID`,
 * exactly as on a route whose own `key` function returned it. One validator, one code per
 * situation (docs/guarantees.md, hostile input). The value is not narrowed on purpose:
 * `RequestKey` checks the runtime type, as it must for `key` functions written in JavaScript.
 * @example
 * key: (request) => presentExternalId(jsonBody(request)?.event_id)
 */
export function presentExternalId(value: unknown): ExternalId | undefined {
  return value === undefined || value === null || value === '' ? undefined : (value as ExternalId);
}

/**
 * The identity of one delivery: which provider sent it and the provider's own id for it.
 * The same external id at two providers is two receipts. Nothing is trimmed or normalised:
 * the id is stored exactly as given.
 *
 * Numbers are keyed by their value, in decimal: `7` and `'7'` are one key, and so are `-0` and
 * `0` (both `'0'`). That is deliberate: `-0 === 0`, no provider numbers its
 * deliveries with a signed zero, and refusing it would turn a request whose id equals 0 into a
 * 400. The raw-body fingerprint still tells the spellings apart: a body with `-0` that arrives
 * after one with `0` under the same key gets 422, never the other's stored answer. A string
 * keeps its exact text (`'-0'` is its own key).
 *
 * @example
 * new RequestKey('stripe', event.id);
 * new RequestKey('telegram', update.update_id); // numbers become strings: '123456'
 * @throws {InvalidRequestKey} naming the field when a part is empty, too long (160 characters,
 *   640 UTF-8 bytes) or not storable.
 */
export class RequestKey implements KeyLike {
  readonly provider: string;
  readonly externalId: string;

  constructor(provider: string, externalId: ExternalId) {
    if (typeof provider !== 'string') {
      throw new InvalidRequestKey(
        'provider',
        `must be a string, got ${provider === null ? 'null' : typeof provider}`,
      );
    }
    this.provider = checkKeyPart('provider', provider);
    this.externalId = checkKeyPart('externalId', externalIdToString(externalId));
  }

  /** Accepts a `RequestKey` as is and validates any other `{ provider, externalId }` object. */
  static from(key: KeyLike | RequestKey): RequestKey {
    return key instanceof RequestKey ? key : new RequestKey(key.provider, key.externalId);
  }

  /** `provider/externalId`, for logs. */
  toString(): string {
    return `${this.provider}/${this.externalId}`;
  }
}
