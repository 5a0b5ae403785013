/** @module Request fingerprints: SHA-256 of the raw body, or of a canonical JSON of the parsed body. */
import { createHash } from 'node:crypto';
import type { HttpRequest } from './types';

/** Lower-case hex SHA-256 of `data` (64 characters: what the receipts' `fingerprint` column holds). */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * JSON with object keys sorted at every level, so that two parses of the same payload give the
 * same text whatever the key order. Follows `JSON.stringify` otherwise (`toJSON`, `undefined`
 * members dropped, `undefined` in arrays as `null`); bigints become their decimal digits.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return canonicalJson(withJson.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const name of Object.keys(record).sort()) {
    const member = record[name];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    members.push(`${JSON.stringify(name)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
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
