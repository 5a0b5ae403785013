/**
 * @module Lemon Squeezy preset: the event name with its record's type, id and `updated_at` as the
 * key, `X-Signature` verified on the raw body, a stored 2xx replayed as the 200 Lemon Squeezy wants.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import type { SecretOptions } from './secrets';

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
export function lemonsqueezy<Events extends object = LemonSqueezyMinimalEvents>(
  options: LemonSqueezyOptions,
): TypedPreset<Events> {
  const { secret, resolveSecret } = requireOptions('lemonsqueezy', options);
  const { preset } = hmacPreset(
    {
      provider: 'lemonsqueezy',
      secret,
      resolveSecret,
      signatureHeader: 'x-signature',
      key: eventKey,
      keyDescription: 'meta.event_name, data.type and data.id in the body',
      retentionDays: 7,
    },
    { names: { preset: 'lemonsqueezy', option: 'secret', what: 'the signing secret' } },
  );
  return typed<Events>(
    {
      ...preset,
      replay(stored) {
        return stored.status >= 200 && stored.status < 300 && stored.status !== 200
          ? { ...stored, status: 200 }
          : stored;
      },
    },
    (request) => {
      const meta = jsonBody(request)?.meta;
      return isJsonObject(meta) ? idPart(meta.event_name) : undefined;
    },
  );
}
