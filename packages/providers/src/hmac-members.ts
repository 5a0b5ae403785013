/**
 * @module The presets that are `hmac()` configured and keyed by a header or a body field:
 * Razorpay, Typeform, Bitbucket, Sentry and Paystack. Each factory is a row of the family in
 * `hmac-family.ts`: what is that provider's (its secret option, signature header and spelling,
 * key, retention, event name), nothing more. Their types come first, then the factories.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { Named } from './events';
import { hmacMember } from './hmac-family';
import { bodyField, header, idPart, isJsonObject, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link razorpay}: `secret`, the secret set on the webhook in the Dashboard (not the
 * API key secret), or several; or `resolveSecret`, a lookup per request.
 */
export type RazorpayOptions = SecretOptions<'secret', string>;

/** A Razorpay delivery as this preset reads it: its `event` name. Razorpay's SDK types no webhook payload. */
export type RazorpayMinimalEvent = Named<'event'>;

/** Razorpay's events: any name, each a {@link RazorpayMinimalEvent}. */
export type RazorpayMinimalEvents = Record<string, RazorpayMinimalEvent>;

/**
 * Options of {@link typeform}: `secret`, the secret set on the form's webhook (Connect, Webhooks,
 * Edit, or `secret` in the API), or several; or `resolveSecret`, a lookup per request.
 */
export type TypeformOptions = SecretOptions<'secret', string>;

/** A Typeform delivery as this preset reads it: `event_id` (the key) and `event_type` (the event name). */
export type TypeformMinimalEvent = Named<'event_id' | 'event_type'>;

/** Typeform's events: any name, each a {@link TypeformMinimalEvent}. */
export type TypeformMinimalEvents = Record<string, TypeformMinimalEvent>;

/**
 * Options of {@link bitbucket}: `secret`, the webhook's secret (Repository settings, Webhooks),
 * or several; or `resolveSecret`, a lookup per request.
 */
export type BitbucketOptions = SecretOptions<'secret', string>;

/** A Bitbucket delivery: this preset reads nothing of its body (the event name is the `X-Event-Key` header). */
export type BitbucketMinimalEvent = Readonly<Record<string, unknown>>;

/** Bitbucket's events: any name, each a {@link BitbucketMinimalEvent}. */
export type BitbucketMinimalEvents = Record<string, BitbucketMinimalEvent>;

/**
 * Options of {@link sentry}: `clientSecret`, the integration's Client Secret (Settings, Developer
 * Settings, your integration), or several; or `resolveSecret`, a lookup per request.
 */
export type SentryOptions = SecretOptions<'clientSecret', string>;

/** A Sentry integration delivery as this preset reads it: its `action`. The event name is the `Sentry-Hook-Resource` header. */
export type SentryMinimalEvent = Named<'action'>;

/** Sentry's resources: any name, each a {@link SentryMinimalEvent}. */
export type SentryMinimalEvents = Record<string, SentryMinimalEvent>;

/**
 * Options of {@link paystack}: `secretKey`, your secret key (`sk_live_…` or `sk_test_…`, which
 * Paystack signs webhooks with), or several while you roll it; or `resolveSecret`, a lookup per
 * request.
 */
export type PaystackOptions = SecretOptions<'secretKey', string>;

/** A Paystack delivery as this preset reads it: `event` (the event name) and the record's `data.id` or `data.reference`. */
export interface PaystackMinimalEvent {
  readonly event: string;
  readonly data: { readonly id?: number | string; readonly reference?: string };
}

/** Paystack's events: any name, each a {@link PaystackMinimalEvent}. */
export type PaystackMinimalEvents = Record<string, PaystackMinimalEvent>;

/** `event:id`, or `event:reference` for a record without an id; `undefined` without either. */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const event = idPart(body?.event);
  const data = isJsonObject(body?.data) ? body.data : undefined;
  const record = idPart(data?.id) ?? idPart(data?.reference);
  return event === undefined || record === undefined ? undefined : `${event}:${record}`;
}

/**
 * Razorpay webhook preset (payments, orders, refunds, subscriptions).
 *
 * - **Key**: the `x-razorpay-event-id` header, which Razorpay sends the same on every retry of an
 *   event and tells you to deduplicate on. It is **not covered by the signature** (only the body
 *   is): a forger would need a valid signature for the body anyway, and the body carries no event
 *   id to cross-check, so a captured delivery replayed with another id runs again. Keep the
 *   handler's own state checks (an order already paid stays paid).
 * - **Signature**: `X-Razorpay-Signature` is hex HMAC-SHA256 of the raw body under the webhook
 *   secret. No timestamp is signed.
 * - **Retention**: 7 days: Razorpay retries non-2xx answers with exponential backoff for 24 hours
 *   after the event was created, then disables the webhook until you enable it again.
 *
 * @example
 * const preset = providers.razorpay({ secret: process.env.RAZORPAY_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#razorpay
 */
export const razorpay = /* @__PURE__ */ hmacMember<RazorpayOptions, RazorpayMinimalEvents>({
  provider: 'razorpay',
  secret: ['secret', 'the webhook secret'],
  signature: { signatureHeader: 'x-razorpay-signature' },
  key: 'x-razorpay-event-id',
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event'),
});

/**
 * Typeform webhook preset (`form_response`: a form submitted).
 *
 * - **Key**: `event_id` from the body, the id of this webhook event.
 * - **Signature**: `Typeform-Signature: sha256=<base64 HMAC-SHA256(secret, rawBody)>` (base64,
 *   not hex). No timestamp is signed. A webhook without a secret sends no signature: set one.
 * - **Retention**: 7 days. Typeform retries a failed delivery; its schedule is UNCONFIRMED here.
 *
 * @example
 * const preset = providers.typeform({ secret: process.env.TYPEFORM_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#typeform
 */
export const typeform = /* @__PURE__ */ hmacMember<TypeformOptions, TypeformMinimalEvents>({
  provider: 'typeform',
  secret: ['secret', 'the webhook secret'],
  signature: { signatureHeader: 'typeform-signature', encoding: 'base64', prefix: 'sha256=' },
  key: [/* @__PURE__ */ bodyField('event_id'), 'event_id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event_type'),
});

/**
 * Bitbucket Cloud webhook preset (repository push, pull request, issue events).
 *
 * - **Key**: the `X-Request-UUID` header, Bitbucket's id for the request. It is **not covered by
 *   the signature** (only the body is), nor are `X-Hook-UUID`, `X-Event-Key` and
 *   `X-Attempt-Number`: a captured request re-sent with a fresh UUID passes and runs again. That
 *   a retry keeps the UUID is UNCONFIRMED here (its `X-Attempt-Number` counts the attempts).
 * - **Signature**: `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the raw body>` under the webhook
 *   secret. No timestamp is signed.
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here).
 *
 * @example
 * const preset = providers.bitbucket({ secret: process.env.BITBUCKET_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#bitbucket
 */
export const bitbucket = /* @__PURE__ */ hmacMember<BitbucketOptions, BitbucketMinimalEvents>({
  provider: 'bitbucket',
  secret: ['secret', 'the webhook secret'],
  signature: { signatureHeader: 'x-hub-signature', prefix: 'sha256=' },
  key: ['x-request-uuid', 'X-Request-UUID header'],
  retentionDays: 7,
  eventType: (request) => header(request, 'x-event-key'),
});

/**
 * Sentry integration-platform webhook preset (internal or public integrations: `installation`,
 * `issue`, `event_alert`, `metric_alert`, `error`, `comment` resources).
 *
 * - **Key**: the `Request-ID` header, Sentry's id for the request. It is **not covered by the
 *   signature** (only the body is), and neither are `Sentry-Hook-Resource` (which resource sent
 *   it: route on it) and `Sentry-Hook-Timestamp`: a captured request re-sent with a fresh
 *   `Request-ID` passes and runs again. Keep the handler's own state checks.
 * - **Signature**: `Sentry-Hook-Signature` is hex HMAC-SHA256 of the raw body under the client
 *   secret.
 * - **Retention**: 7 days (Sentry expects an answer within 1 second; whether and how it retries is
 *   UNCONFIRMED here).
 *
 * @example
 * const preset = providers.sentry({ clientSecret: process.env.SENTRY_CLIENT_SECRET! });
 * @throws {ConfigError} naming `clientSecret` when invalid.
 * @see docs/providers.md#sentry
 */
export const sentry = /* @__PURE__ */ hmacMember<SentryOptions, SentryMinimalEvents>({
  provider: 'sentry',
  secret: ['clientSecret', 'the integration client secret'],
  signature: { signatureHeader: 'sentry-hook-signature' },
  key: ['request-id', 'Request-ID header'],
  retentionDays: 7,
  eventType: (request) => header(request, 'sentry-hook-resource'),
});

/**
 * Paystack webhook preset (`charge.success`, transfers, refunds, subscriptions, disputes).
 *
 * - **Key**: `event:data.id` (`charge.success:4099260516`), or `event:data.reference` when the
 *   record has no id. Paystack's events carry no event id of their own; one record reaches one
 *   event name once per state change, so the pair names the event (a `transfer.success` and a
 *   `transfer.failed` of one transfer stay two keys).
 * - **Signature**: `x-paystack-signature` is hex HMAC-SHA512 of the raw body under your secret
 *   key. No timestamp is signed.
 * - **Retention**: 7 days: in live mode Paystack retries every 3 minutes for the first 4 tries,
 *   then hourly for 72 hours (UNCONFIRMED against a stored copy of Paystack's page).
 *
 * @example
 * const preset = providers.paystack({ secretKey: process.env.PAYSTACK_SECRET_KEY! });
 * @throws {ConfigError} naming `secretKey` when invalid.
 * @see docs/providers.md#paystack
 */
export const paystack = /* @__PURE__ */ hmacMember<PaystackOptions, PaystackMinimalEvents>({
  provider: 'paystack',
  secret: ['secretKey', 'your secret key'],
  signature: { signatureHeader: 'x-paystack-signature', algorithm: 'sha512' },
  key: [eventKey, 'event and data.id (or data.reference) in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event'),
});
