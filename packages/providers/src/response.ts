/** @module Building and rewriting the neutral response records of protocol-shaped answers. */
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

/** A JSON answer from already-serialised text. */
export function jsonText(status: number, text: string): HttpResponseRecord {
  return { status, headers: { ...JSON_HEADERS }, body: Buffer.from(text, 'utf8') };
}

/** The stored record with a new body; a stored `content-length` is corrected to the new size. */
export function withBody(stored: HttpResponseRecord, body: Buffer): HttpResponseRecord {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(stored.headers)) {
    headers[name] = name.toLowerCase() === 'content-length' ? String(body.length) : value;
  }
  return { status: stored.status, headers, body };
}
