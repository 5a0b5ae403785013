/**
 * @module Sanity (GROQ-powered webhooks), a member of the timestamped-HMAC family whose stamp is in
 * milliseconds and whose signature is unpadded base64url (`sanity-webhook-signature:
 * t=<ms>,v1=<base64url>`).
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { header } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { signatureList, stampDotBody, timestampedMember } from './timestamped-family';

/**
 * Options of {@link sanity}: `secret`, the webhook's secret (set when you create it), or several
 * while you change it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed `t` and now, in seconds. Defaults to
 * 300 (Sanity's toolkit checks none).
 */
export type SanityOptions = TimedSecretOptions<'secret'>;

/** A Sanity delivery: the body is your webhook's GROQ projection, so its shape is yours. */
export type SanityMinimalEvents = Record<string, unknown>;

/**
 * `sanity-transaction-id:sanity-document-id` (one transaction changes one document once), else
 * the `idempotency-key` header; `undefined` without either.
 */
function deliveryKey(request: HttpRequest): string | undefined {
  const transaction = header(request, 'sanity-transaction-id');
  const document = header(request, 'sanity-document-id');
  if (transaction && document) return `${transaction}:${document}`;
  return header(request, 'idempotency-key') || undefined;
}

/**
 * Sanity GROQ-powered webhook preset (docs/providers.md#sanity).
 *
 * - **Key**: `sanity-transaction-id:sanity-document-id` headers (`tx_…:movie_123`): the change a
 *   delivery reports, the same on a retry; else the `idempotency-key` header. Neither is signed.
 * - **Signature**: `sanity-webhook-signature: t=<unix ms>,v1=<base64url>`, v1 = unpadded base64url
 *   HMAC-SHA256(secret, `${t}.${rawBody}`), constant time; `t` within `toleranceSeconds` of now,
 *   either way.
 * - **Events**: the body is your projection, so no event name is read: `eventType(request)` is
 *   `undefined` (project the name into the body and route on it yourself).
 * - **Retention**: 7 days. Sanity retries twice, 30 seconds apart, on 429 and 5xx answers.
 *
 * @example
 * const preset = providers.sanity({ secret: process.env.SANITY_WEBHOOK_SECRET! });
 * preset.key(request); // 'tx_9X2kLm4p:movie_123'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#sanity
 */
export const sanity = /* @__PURE__ */ timestampedMember<SanityOptions, SanityMinimalEvents>({
  provider: 'sanity',
  secret: ['secret', 'the webhook secret'],
  toleranceSeconds: 300,
  header: 'sanity-webhook-signature',
  read: /* @__PURE__ */ signatureList(',', 't', 'v1'),
  stamp: 'ms',
  encoding: 'base64url',
  signed: stampDotBody,
  key: [deliveryKey, 'sanity-transaction-id and sanity-document-id (or idempotency-key) headers'],
  retentionDays: 7,
  eventType: () => undefined,
});
