/**
 * @module The timestamped-HMAC family's members: Stripe (`t=…,v1=…`), Paddle (`ts=…;h1=…`) and
 * Calendly (`t=…,v1=…`), which send a `name=value` list in one header, and Slack (`v0=…`, its
 * stamp in a header of its own). Each factory is a row of the family in `timestamped-family.ts`;
 * their types come first, then the factories.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { Named } from './events';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { bodyField, header, idPart, isJsonObject, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { signatureList, stampDotBody, timestampedMember } from './timestamped-family';

/**
 * Options of {@link stripe}: `secret`, the endpoint's signing secret (`whsec_…`, used as is), or
 * several while you roll it (any one verifies, in any order); or `resolveSecret`, a lookup per
 * request (docs/providers.md#secrets-rotation-and-one-per-customer).
 *
 * `toleranceSeconds`: accepted distance between the signed timestamp `t` and now. Defaults to 300
 * (stripe-node's default).
 */
export type StripeOptions = TimedSecretOptions<'secret'>;

/**
 * A Stripe event as this preset reads it: its `id` (the key) and `type` (the event name). Stripe's
 * own `Stripe.Event` union comes from `@webhook-idempotency/providers/types/stripe`.
 */
export type StripeMinimalEvent = Named<'id' | 'type'>;

/** Stripe's events without its SDK's types: any name, each a {@link StripeMinimalEvent}. */
export type StripeMinimalEvents = Record<string, StripeMinimalEvent>;

/**
 * Options of {@link paddle}: `secret`, the notification destination's secret key
 * (`pdl_ntfset_…`), or several; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed `ts` and now. Defaults to 5 (the Paddle
 * SDKs' default).
 */
export type PaddleOptions = TimedSecretOptions<'secret'>;

/**
 * A Paddle Billing notification as this preset reads it: `event_id` (the key) and `event_type`
 * (the event name). Paddle's Node SDK types its events after converting them to camelCase, which
 * is not what the body holds, so no SDK type is offered here.
 */
export type PaddleMinimalEvent = Named<'event_id' | 'event_type'>;

/** Paddle's events: any name, each a {@link PaddleMinimalEvent}. */
export type PaddleMinimalEvents = Record<string, PaddleMinimalEvent>;

/**
 * Options of {@link calendly}: `signingKey`, the webhook signing key (`signing_key` of the
 * subscription), or several; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the signed `t` and now, in seconds. Defaults to
 * 180 (Calendly's example).
 */
export type CalendlyOptions = TimedSecretOptions<'signingKey'>;

/** A Calendly delivery as this preset reads it: `event` (the event name) and `payload.uri`. Calendly publishes no SDK types. */
export interface CalendlyMinimalEvent {
  readonly event: string;
  readonly payload: { readonly uri: string };
}

/** Calendly's events: any name, each a {@link CalendlyMinimalEvent}. */
export type CalendlyMinimalEvents = Record<string, CalendlyMinimalEvent>;

/** `event:payload.uri`; `undefined` without either. */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const event = idPart(body?.event);
  const uri = isJsonObject(body?.payload) ? idPart(body.payload.uri) : undefined;
  return event === undefined || uri === undefined ? undefined : `${event}:${uri}`;
}

/**
 * Options of {@link slack}: `signingSecret`, the app's signing secret (Basic Information → App
 * Credentials), or several while you regenerate it; or `resolveSecret`, a lookup per request
 * (one app per customer).
 *
 * `toleranceSeconds`: accepted distance between `X-Slack-Request-Timestamp` and now. Defaults to
 * 300 (Slack's SDKs use 5 minutes).
 */
export type SlackOptions = TimedSecretOptions<'signingSecret'>;

/**
 * An Events API delivery as this preset reads it: the app and event ids (the key) and the inner
 * event's `type` (the event name). `@webhook-idempotency/providers/types/slack` types the inner
 * event with `@slack/types`.
 */
export interface SlackMinimalEnvelope<Event = { readonly type: string }> {
  readonly type: 'event_callback';
  readonly api_app_id: string;
  readonly event_id: string;
  readonly event: Event;
}

/** Slack's events without `@slack/types`: any name, each a {@link SlackMinimalEnvelope}. */
export type SlackMinimalEvents = Record<string, SlackMinimalEnvelope>;

/**
 * Stripe webhook preset (docs/providers.md#stripe).
 *
 * - **Key**: the event's `id` (`evt_…`): every retry of an event carries the same event object.
 *   An `id` that is present but not a string or safe integer answers 400
 *   `ERR_IDEMPOTENCY_KEY_INVALID`, a missing one `ERR_IDEMPOTENCY_KEY_MISSING`.
 * - **Pass-through**: none.
 * - **Signature**: `Stripe-Signature: t=<unix>,v1=<hex>`; the expected value is hex
 *   HMAC-SHA256(secret, `${t}.${rawBody}`) over the raw bytes; any `v1` may match (Stripe sends one
 *   per active secret while you roll it), under any of the secrets given. `t` must be within
 *   `toleranceSeconds` of now, either way.
 * - **Events**: `eventType(request)` is the event's `type`; the event map is
 *   {@link StripeMinimalEvents}, or Stripe's own with `stripe<StripeEvents>(…)` and
 *   `StripeEvents` from `@webhook-idempotency/providers/types/stripe`.
 * - **Retention**: 30 days. Live retries run for up to 3 days, and the Events API lists events of
 *   the last 30 days, the window in which you may reprocess them by hand.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.stripe({ secret: process.env.STRIPE_WEBHOOK_SECRET! });
 * preset.key(request); // 'evt_1PqRsT2eZvKYlo2C0a1b2c3d'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#stripe
 */
export const stripe = /* @__PURE__ */ timestampedMember<StripeOptions, StripeMinimalEvents>({
  provider: 'stripe',
  secret: ['secret', 'the endpoint signing secret (whsec_…)'],
  toleranceSeconds: 300,
  header: 'stripe-signature',
  // Only a `t` that is Unix seconds counts; `v0` and other schemes are ignored.
  read: /* @__PURE__ */ signatureList(',', 't', 'v1', true),
  // Stripe's libraries sign `t` as the number they parsed, so a zero-padded `t` signs without its zeros.
  signed: (_, seconds, rawBody) => [`${seconds}.`, rawBody],
  key: [(request) => presentExternalId(jsonBody(request)?.id), 'event id in the body'],
  retentionDays: 30,
  eventType: /* @__PURE__ */ bodyField('type'),
});

/**
 * Paddle Billing preset (docs/providers.md#paddle).
 *
 * - **Key**: `event_id` (`evt_…`). Paddle says to make handlers idempotent on it; one event sent to
 *   several destinations gets one `notification_id` each, but the event id is the business fact.
 * - **Pass-through**: none.
 * - **Signature**: `Paddle-Signature: ts=<unix>;h1=<hex>`, h1 = HMAC-SHA256(destination secret,
 *   `${ts}:${rawBody}`), constant time, any `h1` may match; `ts` within `toleranceSeconds` either
 *   way. The 5-second default is tight: keep server clocks in sync (NTP) or raise it.
 * - **Retention**: 30 days. Live retries run 3 days, and exhausted notifications can be replayed
 *   through Paddle's API afterwards.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.paddle({ secret: process.env.PADDLE_WEBHOOK_SECRET! });
 * preset.key(request); // 'evt_01hv8x2acma2gz9ntcb8nbj6yw'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#paddle
 */
export const paddle = /* @__PURE__ */ timestampedMember<PaddleOptions, PaddleMinimalEvents>({
  provider: 'paddle',
  secret: ['secret', 'the destination secret key'],
  toleranceSeconds: 5,
  header: 'paddle-signature',
  read: /* @__PURE__ */ signatureList(';', 'ts', 'h1'),
  signed: (stamp, _, rawBody) => [`${stamp}:`, rawBody],
  key: [(request) => presentExternalId(jsonBody(request)?.event_id), 'event_id in the body'],
  retentionDays: 30,
  eventType: /* @__PURE__ */ bodyField('event_type'),
});

/**
 * Calendly webhook preset (`invitee.created`, `invitee.canceled`, `invitee_no_show.*`,
 * `routing_form_submission.created`).
 *
 * - **Key**: `event:payload.uri` (`invitee.created:https://api.calendly.com/scheduled_events/…/invitees/…`).
 *   A delivery has no id of its own; the payload's URI names the invitee (or submission), and
 *   the event name keeps its creation and its cancellation apart.
 * - **Signature**: `Calendly-Webhook-Signature: t=<unix>,v1=<hex>`, HMAC-SHA256 of `${t}.${rawBody}`
 *   under the signing key; `t` must be within `toleranceSeconds` of now, either way.
 * - **Retention**: 7 days (Calendly retries failed deliveries; the schedule is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.calendly({ signingKey: process.env.CALENDLY_WEBHOOK_SIGNING_KEY! });
 * @throws {ConfigError} naming `signingKey`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#calendly
 */
export const calendly = /* @__PURE__ */ timestampedMember<CalendlyOptions, CalendlyMinimalEvents>({
  provider: 'calendly',
  secret: ['signingKey', 'the signing key'],
  toleranceSeconds: 180,
  header: 'calendly-webhook-signature',
  read: /* @__PURE__ */ signatureList(',', 't', 'v1'),
  signed: stampDotBody,
  key: [eventKey, 'event and payload.uri in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event'),
});

/**
 * Slack Events API preset (docs/providers.md#slack).
 *
 * - **Key**: `api_app_id:event_id` (`A0123456789:Ev0ABCDEF12`). Slack calls `event_id` globally
 *   unique; the app id keeps two apps on one endpoint apart.
 * - **Pass-through**: `type: url_verification`, which must echo its `challenge` every time.
 * - **Signature**: `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + ts + ":" + rawBody)>`
 *   with `ts` = `X-Slack-Request-Timestamp`, constant time, within `toleranceSeconds` either way.
 * - **Retention**: 2 days. Slack retries 3 times within about 5 minutes, or hourly for 24 hours
 *   with Delayed Events; 48 hours covers both.
 *
 * Slack sends its first retry about 3 s after the original while your handler may still run, so
 * expect in-progress answers; keep handlers under Slack's 3-second timeout.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.slack({ signingSecret: process.env.SLACK_SIGNING_SECRET! });
 * preset.key(request); // 'A0123456789:Ev0ABCDEF12'
 * - **Events**: `eventType(request)` is the inner `event.type` (`app_mention`); the map is
 *   {@link SlackMinimalEvents}, or `@slack/types`' with `slack<SlackEvents>(…)` and `SlackEvents`
 *   from `@webhook-idempotency/providers/types/slack`.
 *
 * @throws {ConfigError} naming `signingSecret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#slack
 */
export const slack = /* @__PURE__ */ timestampedMember<SlackOptions, SlackMinimalEvents>({
  provider: 'slack',
  secret: ['signingSecret', 'the app signing secret'],
  toleranceSeconds: 300,
  header: 'x-slack-signature',
  read: (value, request) =>
    value.startsWith('v0=')
      ? { stamp: header(request, 'x-slack-request-timestamp'), signatures: [value.slice(3)] }
      : undefined,
  signed: (stamp, _, rawBody) => [`v0:${stamp}:`, rawBody],
  key: [
    (request) => {
      const body = jsonBody(request);
      const app = idPart(body?.api_app_id);
      const event = idPart(body?.event_id);
      return app !== undefined && event !== undefined ? `${app}:${event}` : undefined;
    },
    'api_app_id and event_id in the body',
  ],
  retentionDays: 2,
  passThrough: (request) => jsonBody(request)?.type === 'url_verification',
  eventType: (request) => {
    const event = jsonBody(request)?.event;
    return isJsonObject(event) ? idPart(event.type) : undefined;
  },
});
