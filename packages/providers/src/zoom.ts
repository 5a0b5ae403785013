/**
 * @module Zoom preset: the event, its `event_ts` and a digest of its payload as the key (Zoom sends
 * no event id), `x-zm-signature: v0=` (hex HMAC-SHA256 of `v0:{timestamp}:{body}`) checked by
 * `hmac()`, the `endpoint.url_validation` challenge answered before any claim.
 */
import { createHmac } from 'node:crypto';
import { typed, type TypedPreset } from './events';
import { canonicalFingerprint } from './fingerprint';
import { hmacPreset } from './hmac';
import { requireOptions } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import { handshakeJson, handshakeRefused } from './response';
import type { SecretOptions } from './secrets';

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
export function zoom<Events extends object = ZoomMinimalEvents>(
  options: ZoomOptions,
): TypedPreset<Events> {
  const { secretToken, resolveSecret } = requireOptions('zoom', options);
  const { preset: signed, ring } = hmacPreset(
    {
      provider: 'zoom',
      secret: secretToken,
      resolveSecret,
      signatureHeader: 'x-zm-signature',
      prefix: 'v0=',
      signedPayload: (r) => [`v0:${r.header('x-zm-request-timestamp') ?? ''}:`, r.body],
      key(request) {
        const body = jsonBody(request);
        const event = idPart(body?.event);
        const stamp = idPart(body?.event_ts);
        if (event === undefined || stamp === undefined || !isJsonObject(body?.payload))
          return undefined;
        return `${event}:${stamp}:${canonicalFingerprint(body.payload).slice(0, 32)}`;
      },
      keyDescription: 'event, event_ts and payload in the body',
      retentionDays: 7,
    },
    { names: { preset: 'zoom', option: 'secretToken', what: 'the Secret Token' } },
  );

  return typed<Events>(
    {
      ...signed,
      fingerprint(request) {
        const body = jsonBody(request);
        if (body === undefined) return undefined;
        return canonicalFingerprint({
          event: body.event,
          event_ts: body.event_ts,
          payload: body.payload,
        });
      },
      handshake(request) {
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
      },
    },
    (request) => idPart(jsonBody(request)?.event),
  );
}
