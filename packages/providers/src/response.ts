/** @module Building and rewriting the neutral response records of protocol-shaped answers. */
import { ErrorCode } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

/**
 * The headers of a challenge or handshake answer: such answers echo what the request named (Meta's
 * `hub.challenge`, Twitch's `challenge`, Zoom's `plainToken`), so a browser must never sniff them
 * into another type.
 */
const HANDSHAKE_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

/** A JSON answer from already-serialised text. */
export function jsonText(status: number, text: string): HttpResponseRecord {
  return { status, headers: { ...JSON_HEADERS }, body: Buffer.from(text, 'utf8') };
}

/** A challenge or handshake answer in plain text, never sniffed. */
export function handshakeText(status: number, text: string): HttpResponseRecord {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...HANDSHAKE_HEADERS },
    body: Buffer.from(text, 'utf8'),
  };
}

/** A challenge or handshake answer in JSON, never sniffed. */
export function handshakeJson(status: number, text: string): HttpResponseRecord {
  return {
    status,
    headers: { ...JSON_HEADERS, ...HANDSHAKE_HEADERS },
    body: Buffer.from(text, 'utf8'),
  };
}

/**
 * 400 for a verified handshake the preset cannot answer (no usable challenge): a handshake is
 * never a delivery, so it is refused rather than stored and handed to the handler.
 */
export function handshakeRefused(message: string): HttpResponseRecord {
  return handshakeJson(400, JSON.stringify({ code: ErrorCode.KEY_INVALID, message }));
}

/** The stored record with a new body; a stored `content-length` is corrected to the new size. */
export function withBody(stored: HttpResponseRecord, body: Buffer): HttpResponseRecord {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(stored.headers)) {
    headers[name] = name.toLowerCase() === 'content-length' ? String(body.length) : value;
  }
  return { status: stored.status, headers, body };
}
