/** @module Fingerprints over chosen fields, for providers whose retries may change bytes that do not matter. */
import { canonicalJson, sha256Hex } from '@webhook-idempotency/core/adapter';

/**
 * SHA-256 (hex, 64 characters) of the {@link canonicalJson} of `value`: the fingerprint of the
 * fields a preset picked, the same whatever their key order or spacing on the wire.
 */
export function canonicalFingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
