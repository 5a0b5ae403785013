/**
 * @module Effect keys: a stable key per outbound side effect of a handler (a refund, a payout, an
 * email), for the APIs that deduplicate by a caller-given key (Stripe's `Idempotency-Key`,
 * PayPal's `PayPal-Request-Id`, Square's `idempotency_key`…). A handler that called such an API
 * and then failed, or whose process died before its receipt committed, runs again on the
 * provider's next delivery: with the same key the API answers the first call's result instead of
 * acting twice (docs/side-effects.md).
 *
 * The key is derived, never drawn: the same receipt (provider and external id, which carry the
 * tenant and the batch item where there is one) and the same effect name give the same key in
 * every process, on every retry and takeover, and in every version of this library.
 *
 * Derivation (version 1, a stable contract): SHA-256 over the concatenation of five parts, each
 * written as its UTF-8 length in bytes (decimal), a `:`, then its UTF-8 bytes:
 * `webhook-idempotency/effect-key/v1`, the namespace (empty without one), the provider, the
 * external id, the name. The first 16 bytes of the digest are shaped as an RFC 9562 UUID of
 * version 8 (the version nibble set to 8, the variant bits to `10`) and written as 36 lowercase
 * hex digits and hyphens: ASCII, safe in a URL and a header, within every listed API's length limit
 * (the tightest known, Razorpay payouts', is 4 to 36), and accepted by the APIs that ask for a UUID.
 */
import { createHash } from 'node:crypto';
import { ConfigError, ErrorCode, IdempotencyError } from './errors';
import { type KeyLike, LONE_SURROGATE } from './request-key';

/** Longest effect name (or namespace), in UTF-16 units. It is hashed, so the key's length does not depend on it. */
export const MAX_EFFECT_NAME_LENGTH = 200;

/** The derivation's first part: a new derivation gets a new tag, so no key of this one changes. */
const DERIVATION = 'webhook-idempotency/effect-key/v1';

/**
 * What a run's `effectKey` is built from: a function of the receipt's key giving the run's
 * `effectKey(name)`. One per guard, holding its namespace.
 */
export type EffectKeys = (key: KeyLike) => (name: string) => string;

/** Why `value` cannot be a name or namespace, or `undefined` when it can. */
function problemWith(value: unknown): string | undefined {
  if (typeof value !== 'string')
    return `must be a string, got ${value === null ? 'null' : typeof value}`;
  if (value.length === 0) return 'is empty';
  if (value.length > MAX_EFFECT_NAME_LENGTH)
    return `is ${value.length} characters long; the limit is ${MAX_EFFECT_NAME_LENGTH}`;
  // An unpaired surrogate has no UTF-8 form: it would be hashed as U+FFFD, colliding with others.
  if (LONE_SURROGATE.test(value)) return 'contains an unpaired UTF-16 surrogate (not valid UTF-8)';
  return undefined;
}

/** One part of the canonical encoding: its UTF-8 byte length, `:`, its bytes. */
function part(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length}:`, 'ascii'), bytes]);
}

/** The first 16 bytes of `digest` as an RFC 9562 version 8 UUID, in lowercase hex. */
function uuidOf(digest: Buffer): string {
  const bytes = Buffer.from(digest.subarray(0, 16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The key of `name` for `key` under a namespace already checked.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_EFFECT_NAME_INVALID`: `name` is not a string, is
 *   empty, too long, or not valid UTF-8.
 */
function derive(namespace: string | undefined, key: KeyLike, name: unknown): string {
  const problem = problemWith(name);
  if (problem !== undefined)
    throw new IdempotencyError(ErrorCode.EFFECT_NAME_INVALID, `Invalid effect name: ${problem}`);
  const hash = createHash('sha256');
  for (const value of [DERIVATION, namespace ?? '', key.provider, key.externalId, name as string])
    hash.update(part(value));
  return uuidOf(hash.digest());
}

/** `namespace` checked as the `effectKeyNamespace` option. */
function checkedNamespace(namespace: unknown): string | undefined {
  if (namespace === undefined) return undefined;
  const problem = problemWith(namespace);
  if (problem !== undefined) throw new ConfigError('effectKeyNamespace', problem);
  return namespace as string;
}

/**
 * A guard's {@link EffectKeys} under its `effectKeyNamespace` option, checked once.
 * @throws {ConfigError} naming `effectKeyNamespace` unless it is `undefined` or a valid name.
 */
export function effectKeysFor(namespace: unknown): EffectKeys {
  const given = checkedNamespace(namespace);
  return (key) => (name) => derive(given, key, name);
}
