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

/** True when `given` is exactly the unpadded base64url spelling of `expected`, in constant time. */
export function base64urlEquals(given: string, expected: Buffer): boolean {
  return stringEquals(given, expected.toString('base64url'));
}

/** A signature spelled in standard base64 (padding optional), as the public-key providers send it; any length. */
export const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** How a provider spells a digest in its header. */
export type DigestEncoding = 'hex' | 'base64';

/** How a timestamped provider spells its signatures: a {@link DigestEncoding}, or unpadded base64url (Sanity). */
export type SignatureEncoding = DigestEncoding | 'base64url';

const EQUALS: Readonly<Record<SignatureEncoding, (given: string, expected: Buffer) => boolean>> = {
  hex: hexEquals,
  base64: base64Equals,
  base64url: base64urlEquals,
};

/**
 * True when any of `signatures` is the HMAC (SHA-256 unless `algorithm` says) of `parts` under
 * `key`, spelled in `encoding` (hex in either case, padded base64 or unpadded base64url) and compared in constant
 * time. The HMAC is computed once; no signature at all is `false`.
 */
export function hmacMatches(
  key: string | Buffer,
  parts: SignedParts,
  signatures: readonly string[],
  encoding: SignatureEncoding,
  algorithm: HmacAlgorithm = 'sha256',
): boolean {
  if (signatures.length === 0) return false;
  const expected = hmac(algorithm, key, parts);
  const equals = EQUALS[encoding];
  return signatures.some((signature) => equals(signature, expected));
}

const UNIX_SECONDS = /^\d{1,12}$/;

/** Parses a decimal Unix timestamp in seconds; anything else (signs, decimals, blanks) is `undefined`. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  return text !== undefined && UNIX_SECONDS.test(text) ? Number(text) : undefined;
}

/** How a provider writes its signed time: Unix seconds, Unix milliseconds, or an ISO-8601 date-time. */
export type StampUnit = 's' | 'ms' | 'iso';

const UNIX_MS = /^\d{1,15}$/;
/** A full ISO-8601 date-time with a zone (`2026-12-06T17:00:00Z`, `…T17:00:00.123+01:00`). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The signed time `text`, written in `unit`, as Unix seconds (fractional for milliseconds);
 * `undefined` for anything else: signs, blanks, a date-time without a zone or that is no date.
 */
export function parseStamp(unit: StampUnit, text: string | undefined): number | undefined {
  if (unit === 's') return parseUnixSeconds(text);
  if (text === undefined) return undefined;
  if (unit === 'ms') return UNIX_MS.test(text) ? Number(text) / 1000 : undefined;
  const ms = ISO_DATE_TIME.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms / 1000;
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
