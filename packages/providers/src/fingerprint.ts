/** @module Fingerprints over chosen fields, for providers whose retries may change bytes that do not matter. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { canonicalJson, sha256Hex } from '@webhook-idempotency/core/adapter';
import type { JsonObject } from './request-fields';

/**
 * SHA-256 (hex, 64 characters) of the {@link canonicalJson} of `value`: the fingerprint of the
 * fields a preset picked, the same whatever their key order or spacing on the wire.
 */
export function canonicalFingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * A preset's `fingerprint`: the {@link canonicalFingerprint} of the object `read` takes from a
 * request, less its top-level fields named in `omit` (what a retry changes: an attempt number, a
 * send time); `undefined`, the engine's own fingerprint, when `read` finds none.
 */
export function objectFingerprint(
  read: (request: HttpRequest) => JsonObject | undefined,
  ...omit: readonly string[]
): (request: HttpRequest) => string | undefined {
  return (request) => {
    const value = read(request);
    if (value === undefined) return undefined;
    const kept = Object.entries(value).filter(([field]) => !omit.includes(field));
    return canonicalFingerprint(Object.fromEntries(kept));
  };
}
