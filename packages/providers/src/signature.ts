/** @module Constant-time comparison, HMAC and timestamp-tolerance helpers shared by the presets. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The digests an HMAC preset can use. */
export type HmacAlgorithm = 'sha256' | 'sha1' | 'sha512';

/** What an HMAC is computed over: pieces fed in order, so a raw body is never copied or re-encoded. */
export type SignedParts = readonly (string | Buffer)[];

/** HMAC of `parts` (strings as UTF-8, Buffers as they are) under `key`. */
export function hmac(algorithm: HmacAlgorithm, key: string | Buffer, parts: SignedParts): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** MD5 of the UTF-8 concatenation of `parts` (Click's `sign_string` is a plain MD5, not an HMAC). */
export function md5(parts: SignedParts): Buffer {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/**
 * Constant-time equality of two byte strings. Buffers of different lengths are unequal at once:
 * use it where the length is public (a digest's width), and {@link secretEquals} otherwise.
 */
export function bytesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time equality of two strings compared as their UTF-8 bytes (length is not secret). */
export function stringEquals(given: string, expected: string): boolean {
  return bytesEqual(Buffer.from(given, 'utf8'), Buffer.from(expected, 'utf8'));
}

/**
 * Constant-time equality for a shared secret (a password, a secret token): both sides are hashed
 * first, so neither the content nor the length of the expected value leaks through timing.
 * @param expectedDigest SHA-256 of the expected secret, computed once at construction with {@link secretDigest}.
 */
export function secretEquals(given: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(secretDigest(given), expectedDigest);
}

/** SHA-256 of a secret's UTF-8 bytes, for {@link secretEquals}. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

const HEX = /^[0-9a-fA-F]+$/;

/** True when `given` is exactly the hex spelling (either case) of `expected`, compared in constant time. */
export function hexEquals(given: string, expected: Buffer): boolean {
  if (given.length !== expected.length * 2 || !HEX.test(given)) return false;
  return bytesEqual(Buffer.from(given, 'hex'), expected);
}

/** True when `given` is exactly the standard (padded) base64 spelling of `expected`, in constant time. */
export function base64Equals(given: string, expected: Buffer): boolean {
  return stringEquals(given, expected.toString('base64'));
}

/** How a provider spells a digest in its header. */
export type DigestEncoding = 'hex' | 'base64';

/**
 * True when any of `signatures` is the HMAC (SHA-256 unless `algorithm` says) of `parts` under
 * `key`, spelled in `encoding` (hex in either case, or padded base64) and compared in constant
 * time. The HMAC is computed once; no signature at all is `false`.
 */
export function hmacMatches(
  key: string | Buffer,
  parts: SignedParts,
  signatures: readonly string[],
  encoding: DigestEncoding,
  algorithm: HmacAlgorithm = 'sha256',
): boolean {
  if (signatures.length === 0) return false;
  const expected = hmac(algorithm, key, parts);
  const equals = encoding === 'hex' ? hexEquals : base64Equals;
  return signatures.some((signature) => equals(signature, expected));
}

const UNIX_SECONDS = /^\d{1,12}$/;

/** Parses a decimal Unix timestamp in seconds; anything else (signs, decimals, blanks) is `undefined`. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  return text !== undefined && UNIX_SECONDS.test(text) ? Number(text) : undefined;
}

/**
 * True when a signed timestamp is within `toleranceSeconds` of now, in either direction: a stamp
 * from the future beyond the tolerance is as suspect as a stale one (a replayed or forged header).
 */
export function isFresh(
  timestampSeconds: number,
  nowMs: number,
  toleranceSeconds: number,
): boolean {
  return Math.abs(nowMs / 1000 - timestampSeconds) <= toleranceSeconds;
}
