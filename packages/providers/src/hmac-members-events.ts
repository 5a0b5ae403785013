/**
 * @module The `hmac()` family's members that read more of the event body: Coinbase Commerce
 * (fingerprint of the wrapped event), Lemon Squeezy (a key of several fields, any 2xx replayed as
 * 200) and Linear (a signed body timestamp, fingerprint without it). Each factory is a row of the
 * family in `hmac-family.ts`; their types come first, then the factories.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { objectFingerprint } from './fingerprint';
import { hmacMember } from './hmac-family';
import { clockOption, toleranceOption } from './options';
import { bodyField, idPart, isJsonObject, jsonBody } from './request-fields';
import type { SecretOptions, TimedSecretOptions } from './secrets';

/**
 * Options of {@link coinbase}: `secret`, the endpoint's shared secret (Settings, Webhook
 * subscriptions), or several; or `resolveSecret`, a lookup per request.
 */
export type CoinbaseOptions = SecretOptions<'secret', string>;

/** A Coinbase Commerce delivery as this preset reads it: the wrapped `event`'s `id` (the key) and `type` (the event name). */
export interface CoinbaseMinimalEvent {
  readonly event: { readonly id: string; readonly type: string };
}

/** Coinbase Commerce's events: any name, each a {@link CoinbaseMinimalEvent}. */
export type CoinbaseMinimalEvents = Record<string, CoinbaseMinimalEvent>;

/** The `event` object Coinbase Commerce wraps in each delivery. */
const eventOf = (request: Parameters<ProviderPreset['key']>[0]) => {
  const event = jsonBody(request)?.event;
  return isJsonObject(event) ? event : undefined;
};

/**
 * Options of {@link lemonsqueezy}: `secret`, the signing secret you entered on the webhook
 * (Settings, Webhooks), or several; or `resolveSecret`, a lookup per request.
 */
export type LemonSqueezyOptions = SecretOptions<'secret', string>;

/** A Lemon Squeezy delivery as this preset reads it: `meta.event_name` and the JSON:API record it is about. */
export interface LemonSqueezyMinimalEvent {
  readonly meta: { readonly event_name: string };
  readonly data: {
    readonly type: string;
    readonly id: string;
    readonly attributes?: { readonly updated_at?: string };
  };
}

/** Lemon Squeezy's events: any name, each a {@link LemonSqueezyMinimalEvent}. */
export type LemonSqueezyMinimalEvents = Record<string, LemonSqueezyMinimalEvent>;

/** `event_name:type:id@updated_at` from `meta` and the JSON:API `data` object. */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const meta = isJsonObject(body?.meta) ? body.meta : undefined;
  const data = isJsonObject(body?.data) ? body.data : undefined;
  const event = idPart(meta?.event_name);
  const type = idPart(data?.type);
  const id = idPart(data?.id);
  if (event === undefined || type === undefined || id === undefined) return undefined;
  const attributes = isJsonObject(data?.attributes) ? data.attributes : undefined;
  const updated = idPart(attributes?.updated_at);
  return `${event}:${type}:${id}${updated === undefined ? '' : `@${updated}`}`;
}

/**
 * Options of {@link linear}: `secret`, the webhook's signing secret (Settings, API, the webhook's
 * page), or several; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between the body's `webhookTimestamp` and now, in seconds,
 * either way. Defaults to 60: Linear asks for a minute, and its SDK's verifier refuses anything
 * older.
 */
export type LinearOptions = TimedSecretOptions<'secret'>;

/**
 * A Linear delivery as this preset reads it: `type` (the entity, the event name), `action` and the
 * signed `webhookTimestamp`. `@linear/sdk` types its payloads, but ships them for ES modules only,
 * which a CommonJS consumer's declarations cannot import; none is offered here.
 */
export interface LinearMinimalEvent {
  readonly type: string;
  readonly action: string;
  readonly webhookTimestamp: number;
}

/** Linear's entity types: any name, each a {@link LinearMinimalEvent}. */
export type LinearMinimalEvents = Record<string, LinearMinimalEvent>;

/**
 * Coinbase Commerce webhook preset (charge events: `charge:created`, `charge:confirmed`, …).
 *
 * - **Key**: the event's id, `event.id` in the body. The delivery around it (its own `id`,
 *   `attempt_number`, `scheduled_for`) is bookkeeping of one attempt.
 * - **Fingerprint**: the `event` object alone, so a retry whose attempt number moved is replayed,
 *   not refused as another body under the same id.
 * - **Signature**: `X-CC-Webhook-Signature` is hex HMAC-SHA256 of the raw body under the shared
 *   secret (coinbase-commerce-node's `Webhook.verifySigHeader`). No timestamp is signed.
 * - **Retention**: 7 days (Coinbase retries failed deliveries; the schedule is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.coinbase({ secret: process.env.COINBASE_COMMERCE_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#coinbase-commerce
 */
export const coinbase = /* @__PURE__ */ hmacMember<CoinbaseOptions, CoinbaseMinimalEvents>({
  provider: 'coinbase',
  secret: ['secret', 'the shared secret'],
  signature: { signatureHeader: 'x-cc-webhook-signature' },
  key: [(request) => idPart(eventOf(request)?.id), 'event id in the body'],
  retentionDays: 7,
  eventType: (request) => idPart(eventOf(request)?.type),
  extend: () => ({ fingerprint: objectFingerprint(eventOf) }),
});

/**
 * Lemon Squeezy webhook preset (orders, subscriptions, subscription invoices, license keys).
 *
 * - **Key**: `meta.event_name:data.type:data.id@data.attributes.updated_at`
 *   (`subscription_updated:subscriptions:1@2026-12-01T10:00:00.000000Z`). Deliveries carry no
 *   event id, and one subscription sends `subscription_updated` many times: the record's
 *   `updated_at` tells one change from the next, while a retry (the same body) keeps the key.
 * - **Success is 200 only**: Lemon Squeezy retries any other status, 201 and 204 included (up to
 *   3 more times, after about 5, 25 and 125 seconds). Answer `200` from the handler. The preset
 *   replays a stored 2xx as 200, so a retry after a 201 is answered 200 from the receipt and the
 *   delivery is marked delivered; the first attempt's own answer is the handler's.
 * - **Signature**: `X-Signature` is hex HMAC-SHA256 of the raw body under the signing secret. No
 *   timestamp is signed.
 * - **Retention**: 7 days (retries end within minutes; a delivery can be resent from the dashboard,
 *   for how long is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.lemonsqueezy({ secret: process.env.LEMONSQUEEZY_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#lemon-squeezy
 */
export const lemonsqueezy = /* @__PURE__ */ hmacMember<
  LemonSqueezyOptions,
  LemonSqueezyMinimalEvents
>({
  provider: 'lemonsqueezy',
  secret: ['secret', 'the signing secret'],
  signature: { signatureHeader: 'x-signature' },
  key: [eventKey, 'meta.event_name, data.type and data.id in the body'],
  retentionDays: 7,
  eventType: (request) => {
    const meta = jsonBody(request)?.meta;
    return isJsonObject(meta) ? idPart(meta.event_name) : undefined;
  },
  extend: () => ({
    replay(stored) {
      return stored.status >= 200 && stored.status < 300 && stored.status !== 200
        ? { ...stored, status: 200 }
        : stored;
    },
  }),
});

/**
 * Linear webhook preset (issues, comments, projects, cycles… of a workspace or an OAuth app).
 *
 * - **Key**: the `Linear-Delivery` header, a UUID per delivery. It is **not** covered by the
 *   signature: a captured request re-sent with a fresh value passes `verify`, but only while its
 *   signed `webhookTimestamp` is within `toleranceSeconds`.
 * - **Fingerprint**: the body without `webhookTimestamp`, which a retry signs anew (a retry within
 *   Linear's one-minute window could not pass otherwise): it is replayed, not refused as another body.
 * - **Signature**: `Linear-Signature` is the hex HMAC-SHA256 of the raw body under the webhook's
 *   secret; the body's `webhookTimestamp` (milliseconds) must be within `toleranceSeconds` of now.
 * - **Retention**: 7 days. Linear retries a failed delivery a few times over hours (schedule
 *   UNCONFIRMED here).
 *
 * @example
 * const preset = providers.linear({ secret: process.env.LINEAR_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#linear
 */
export const linear = /* @__PURE__ */ hmacMember<LinearOptions, LinearMinimalEvents>({
  provider: 'linear',
  secret: ['secret', 'the signing secret'],
  signature: (o) => {
    const tolerance = toleranceOption('linear', o.toleranceSeconds, 60);
    const now = clockOption('linear', o.clock);
    return {
      signatureHeader: 'linear-signature',
      clock: now,
      precheck(request) {
        const stamp = jsonBody(request)?.webhookTimestamp;
        return (
          typeof stamp === 'number' &&
          Number.isFinite(stamp) &&
          Math.abs(now() - stamp) <= tolerance * 1000
        );
      },
    };
  },
  key: ['linear-delivery', 'Linear-Delivery header'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('type'),
  extend: () => ({ fingerprint: objectFingerprint(jsonBody, 'webhookTimestamp') }),
});
