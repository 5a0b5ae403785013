/**
 * @module The `hmac()` family's members that sign more than the body: Square (the notification
 * URL first), Airwallex (the `x-timestamp` header first) and Zoom (`v0:{timestamp}:`, and its URL
 * validation challenge answered under the secret that verified it). Each factory is a row of the
 * family in `hmac-family.ts`; their types come first, then the factories.
 */
import type { Named } from './events';
import { createHmac } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { hmacMember } from './hmac-family';
import { clockOption, requireString, toleranceOption } from './options';
import { bodyField, header, idPart, isJsonObject, jsonBody } from './request-fields';
import { handshakeJson, handshakeRefused } from './response';
import type { Keyring, SecretOptions, TimedSecretOptions } from './secrets';

/** Zoom's `endpoint.url_validation` answered: the plain token and its HMAC under the secret that verified it. */
function zoomHandshake(ring: Keyring<Buffer>) {
  return (request: HttpRequest) => {
    const body = jsonBody(request);
    if (body?.event !== URL_VALIDATION) return undefined;
    const plainToken = isJsonObject(body.payload) ? body.payload.plainToken : undefined;
    if (typeof plainToken !== 'string' || !PLAIN_TOKEN.test(plainToken))
      return handshakeRefused(
        'The endpoint.url_validation carries no plainToken the preset answers (1 to 256 printable characters, no colon); a validation is never a delivery, so nothing was stored',
      );
    // Answered under the Secret Token that verified this request (the engine asks only then).
    const secret = ring.matched(request);
    if (secret === undefined) return undefined;
    const encryptedToken = createHmac('sha256', secret).update(plainToken).digest('hex');
    return handshakeJson(200, JSON.stringify({ plainToken, encryptedToken }));
  };
}

/**
 * Options of {@link square}: `signatureKey`, the subscription's signature key (Developer Console,
 * Webhooks, the subscription's page), or several while you rotate it; or `resolveSecret`, a lookup
 * per request.
 */
export type SquareOptions = SecretOptions<'signatureKey', string> & {
  /**
   * The notification URL exactly as configured on the subscription, `https://…`: Square signs it
   * with the body, so it must match byte for byte (a proxy in front of the app does not change
   * what Square signed). Required.
   */
  notificationUrl: string;
};

/**
 * A Square event as this preset reads it: `event_id` (the key) and `type` (the event name).
 * Square's SDK types its objects in camelCase, not as the body spells them, so none is offered.
 */
export type SquareMinimalEvent = Named<'event_id' | 'type'>;

/** Square's events: any name, each a {@link SquareMinimalEvent}. */
export type SquareMinimalEvents = Record<string, SquareMinimalEvent>;

/**
 * Options of {@link airwallex}: `secret`, the webhook's secret (Settings, Developer, Webhooks), or
 * several; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: refuse an `x-timestamp` further than this from now, in seconds. Defaults to
 * no check: whether Airwallex stamps a retry anew is UNCONFIRMED, and a resent event with its
 * first stamp would be refused. The receipt still stops a replay of an id it holds.
 */
export type AirwallexOptions = TimedSecretOptions<'secret'>;

/** An Airwallex event as this preset reads it: `id` (the key) and `name` (the event name). */
export type AirwallexMinimalEvent = Named<'id' | 'name'>;

/** Airwallex's events: any name, each an {@link AirwallexMinimalEvent}. */
export type AirwallexMinimalEvents = Record<string, AirwallexMinimalEvent>;

/** `x-timestamp` is Unix time in milliseconds, digits only. */
const MILLISECONDS = /^\d{1,15}$/;

/**
 * Options of {@link zoom}: `secretToken`, the app's Secret Token (Marketplace, the app's Features,
 * Access), or several while you regenerate it; or `resolveSecret`, a lookup per request.
 */
export type ZoomOptions = SecretOptions<'secretToken', string>;

/** A Zoom event as this preset reads it: `event` (the event name), `event_ts` and `payload`. */
export interface ZoomMinimalEvent {
  readonly event: string;
  readonly event_ts: number;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Zoom's events: any name, each a {@link ZoomMinimalEvent}. */
export type ZoomMinimalEvents = Record<string, ZoomMinimalEvent>;

const URL_VALIDATION = 'endpoint.url_validation';
/**
 * The plain tokens answered: 1 to 256 printable ASCII characters without a space or a colon (Zoom
 * sends a short random base64url string). The answer is the HMAC of the token under the key that
 * signs deliveries over `v0:{timestamp}:{body}`; a token without a colon can never be such a
 * string, so no answer is ever the signature of a delivery.
 */
const PLAIN_TOKEN = /^[!-9;-~]{1,256}$/;

/**
 * Square webhook preset (payments, refunds, orders, invoices…).
 *
 * - **Key**: `event_id` from the body, which Square calls the idempotency value of each event
 *   notification and tells you to skip when it repeats.
 * - **Signature**: `x-square-hmacsha256-signature` is base64 HMAC-SHA256 under the signature key
 *   of the notification URL followed by the raw body. No timestamp is signed.
 * - **Retention**: 7 days. Square sends an event again when it is not acknowledged in time; its
 *   retry schedule is UNCONFIRMED here.
 *
 * @example
 * const preset = providers.square({
 *   signatureKey: process.env.SQUARE_SIGNATURE_KEY!,
 *   notificationUrl: 'https://shop.example.com/webhooks/square',
 * });
 * @throws {ConfigError} naming `signatureKey` or `notificationUrl` when invalid.
 * @see docs/providers.md#square
 */
export const square = /* @__PURE__ */ hmacMember<SquareOptions, SquareMinimalEvents>({
  provider: 'square',
  secret: ['signatureKey', 'the signature key'],
  signature: (o) => {
    const url = requireString(
      'square',
      'notificationUrl',
      o.notificationUrl,
      'the notification URL as "notificationUrl"',
    );
    if (!/^https?:\/\/\S+$/.test(url))
      throw new ConfigError(
        'notificationUrl',
        'square() needs the full notification URL, https://…',
      );
    return {
      signatureHeader: 'x-square-hmacsha256-signature',
      encoding: 'base64',
      signedPayload: (request) => [url, request.body],
    };
  },
  key: [/* @__PURE__ */ bodyField('event_id'), 'event_id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('type'),
});

/**
 * Airwallex webhook preset (payments, payouts, FX, issuing events).
 *
 * - **Key**: the event's `id` from the body.
 * - **Signature**: `x-signature` is hex HMAC-SHA256 of `x-timestamp` (Unix milliseconds, as sent)
 *   followed by the raw body, under the webhook's secret; the stamp is covered by the signature.
 *   With `toleranceSeconds`, a stamp further from now is refused.
 * - **Success is 200 only**: Airwallex retries when it gets no answer or another status.
 * - **Retention**: 7 days (retry schedule UNCONFIRMED here; events can be re-triggered from the
 *   web app).
 *
 * @example
 * const preset = providers.airwallex({ secret: process.env.AIRWALLEX_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#airwallex
 */
export const airwallex = /* @__PURE__ */ hmacMember<AirwallexOptions, AirwallexMinimalEvents>({
  provider: 'airwallex',
  secret: ['secret', 'the webhook secret'],
  signature: (o) => {
    const tolerance = toleranceOption('airwallex', o.toleranceSeconds);
    const now = clockOption('airwallex', o.clock);
    return {
      signatureHeader: 'x-signature',
      signedPayload: (r) => [r.header('x-timestamp') ?? '', r.body],
      clock: now,
      precheck(request) {
        const stamp = header(request, 'x-timestamp');
        if (stamp === undefined || !MILLISECONDS.test(stamp)) return false;
        return tolerance === undefined || Math.abs(now() - Number(stamp)) <= tolerance * 1000;
      },
    };
  },
  key: [/* @__PURE__ */ bodyField('id'), 'event id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('name'),
});

/**
 * Zoom webhook preset (meetings, webinars, recordings, users, Zoom Phone… event subscriptions).
 *
 * - **Key**: `{event}:{event_ts}:{digest}`, the digest being the first 32 hex characters of the
 *   SHA-256 of the canonical JSON of `payload`. Zoom sends no event id; `event` and `event_ts` alone
 *   would merge two participants joining one meeting in the same millisecond, while the payload
 *   names who and what. A retry repeats the event (UNCONFIRMED that it is byte for byte; spacing
 *   and key order do not change the digest).
 * - **Fingerprint**: the canonical JSON of `event`, `event_ts` and `payload`, so a retry that only
 *   changes a top-level extra (a recording's `download_token`) is replayed.
 * - **Handshake**: a verified `endpoint.url_validation` is answered `{"plainToken", "encryptedToken"}`
 *   (hex HMAC-SHA256 of the plain token) by the preset: no receipt, no handler. Zoom sends it when
 *   the URL is saved and every 72 hours. A token with a colon (the shape of the signed string of a
 *   delivery) or none is answered 400: a validation is never a delivery, and its answer never a
 *   delivery's signature.
 * - **Signature**: `x-zm-signature: v0=<hex HMAC-SHA256 of "v0:{x-zm-request-timestamp}:{raw body}">`
 *   under the Secret Token. Zoom publishes no timestamp window, and none is enforced.
 * - **Retention**: 7 days. Zoom retries 3 times: 5, 20 and 60 minutes apart.
 *
 * @example
 * const preset = providers.zoom({ secretToken: process.env.ZOOM_WEBHOOK_SECRET_TOKEN! });
 * @throws {ConfigError} naming `secretToken` when invalid.
 * @see docs/providers.md#zoom
 */
export const zoom = /* @__PURE__ */ hmacMember<ZoomOptions, ZoomMinimalEvents>({
  provider: 'zoom',
  secret: ['secretToken', 'the Secret Token'],
  signature: {
    signatureHeader: 'x-zm-signature',
    prefix: 'v0=',
    signedPayload: (r) => [`v0:${r.header('x-zm-request-timestamp') ?? ''}:`, r.body],
  },
  key: [
    (request) => {
      const body = jsonBody(request);
      const event = idPart(body?.event);
      const stamp = idPart(body?.event_ts);
      if (event === undefined || stamp === undefined || !isJsonObject(body?.payload))
        return undefined;
      return `${event}:${stamp}:${canonicalFingerprint(body.payload).slice(0, 32)}`;
    },
    'event, event_ts and payload in the body',
  ],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event'),
  extend: (_, ring) => ({
    fingerprint(request) {
      const body = jsonBody(request);
      if (body === undefined) return undefined;
      return canonicalFingerprint({
        event: body.event,
        event_ts: body.event_ts,
        payload: body.payload,
      });
    },
    handshake: zoomHandshake(ring),
  }),
});
