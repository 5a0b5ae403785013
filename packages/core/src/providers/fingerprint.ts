/** @module Fingerprints over chosen fields, for providers whose retries may change bytes that do not matter. */
import { sha256Hex } from './signature';

/**
 * JSON text of a value with object keys sorted at every level, so two payloads that differ only
 * in key order or whitespace give the same text.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 (hex, 64 characters) of {@link canonicalJson}. */
export function canonicalFingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
