/**
 * @module The answers of the providers whose protocol is a fixed text (T-Bank's `OK`, Dropbox
 * Sign's `Hello API Event Received`): the handshake the preset answers itself, and the refusal and
 * in-progress answers, in plain text too and never the success text, so the provider counts them
 * as failures and sends again.
 */
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { handshakeText } from './response';

const TEXT = { 'content-type': 'text/plain; charset=utf-8' } as const;

/** A plain-text answer. */
export function plainText(
  status: number,
  text: string,
  headers: Record<string, string> = {},
): HttpResponseRecord {
  return { status, headers: { ...TEXT, ...headers }, body: Buffer.from(text, 'utf8') };
}

/** The protocol's success text, as a handshake answer the preset gives itself (never stored). */
export function acknowledged(text: string): HttpResponseRecord {
  return handshakeText(200, text);
}

/** A failed signature check: 401 in plain text, which no text protocol reads as success. */
export function refusedText(): HttpResponseRecord {
  return plainText(401, 'Signature invalid');
}

/** Another worker holds the claim: 409 in plain text with `Retry-After`, so the provider sends again. */
export function inProgressText(_request: unknown, retryAfterSeconds: number): HttpResponseRecord {
  return plainText(409, 'In progress; retry later', { 'retry-after': String(retryAfterSeconds) });
}
