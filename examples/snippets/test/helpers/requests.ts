/** The neutral requests the provider snippets' tests hand a preset. */
import type { HttpRequest } from '@webhook-idempotency/core';

/** A JSON POST as an adapter builds it: `value`'s bytes as the raw body, and `headers`. */
export const jsonRequest = (value: unknown, headers: Record<string, string> = {}): HttpRequest => ({
  method: 'POST',
  url: '/webhook',
  headers: { 'content-type': 'application/json', ...headers },
  rawBody: Buffer.from(JSON.stringify(value)),
  body: undefined,
  native: {},
});
