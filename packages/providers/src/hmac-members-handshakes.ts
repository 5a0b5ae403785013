/**
 * @module The `hmac()` family's members whose endpoint also receives a handshake the preset
 * answers itself (Notion's one-time verification token, Viber's `webhook` callback). Each factory is a row of the family in
 * `hmac-family.ts`; their types come first, then the factories.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { Named } from './events';
import { objectFingerprint } from './fingerprint';
import { hmacMember } from './hmac-family';
import { bodyField, bodyText, header, idPart, isJsonObject, jsonBody } from './request-fields';
import { handshakeJson } from './response';
import type { SecretOptions } from './secrets';

/**
 * Options of {@link notion}: `verificationToken`, the subscription's verification token (the key
 * Notion signs with), or several; or `resolveSecret`, a lookup per request (a subscription per
 * customer).
 */
export type NotionOptions = SecretOptions<'verificationToken', string> & {
  /**
   * Called with the token of Notion's one-time verification request (and the request), so that
   * you can copy it into the subscription's form in Notion. That request is **not signed**:
   * anyone can send one, so show or log the token for a person to paste; never install it as a
   * signing secret by itself. Without this option the verification request is refused (401).
   */
  onVerificationToken?: (token: string, request: HttpRequest) => void | Promise<void>;
};

/** A Notion event as this preset reads it: `id` (the key) and `type` (the event name). */
export type NotionMinimalEvent = Named<'id' | 'type'>;

/** Notion's event types: any name, each a {@link NotionMinimalEvent}. */
export type NotionMinimalEvents = Record<string, NotionMinimalEvent>;

/** A token Notion's verification may carry: printable, no spaces, at most 256 characters. */
const TOKEN = /^[\x21-\x7e]{1,256}$/;

/**
 * The token of Notion's verification request: a body holding `verification_token` alone, sent
 * without a signature; `undefined` for anything else.
 */
function verificationToken(request: HttpRequest): string | undefined {
  if (header(request, 'x-notion-signature') !== undefined) return undefined;
  const body = jsonBody(request);
  if (body === undefined || Object.keys(body).length !== 1) return undefined;
  const token = body.verification_token;
  return typeof token === 'string' && TOKEN.test(token) ? token : undefined;
}

/**
 * What Notion's row adds: the verification request handed to `onVerificationToken` and answered
 * 200 (never stored, never the handler's), and a fingerprint without `attempt_number`.
 */
function notionExtras(options: NotionOptions) {
  const callback = options.onVerificationToken;
  if (callback !== undefined && typeof callback !== 'function')
    throw new ConfigError('onVerificationToken', 'notion() needs a function of the token');
  return (preset: ProviderPreset): Partial<ProviderPreset> => ({
    async verify(request) {
      const token = callback === undefined ? undefined : verificationToken(request);
      if (token === undefined) return (await preset.verify?.(request)) === true;
      try {
        await callback?.(token, request);
        return true;
      } catch {
        return false; // refused, nothing stored: Notion can send the token again
      }
    },
    handshake: (request) =>
      callback !== undefined && verificationToken(request) !== undefined
        ? handshakeJson(200, '{}')
        : undefined,
    fingerprint: objectFingerprint(jsonBody, 'attempt_number'),
  });
}

/**
 * Notion webhook preset (page, database, data source and comment events of an integration's
 * subscription).
 *
 * - **Key**: the event's `id` from the body.
 * - **Fingerprint**: the body without `attempt_number`, which a retry raises: a retry is
 *   replayed, not refused as another body under the same id.
 * - **Handshake**: creating a subscription sends one unsigned POST, `{"verification_token": …}`.
 *   With `onVerificationToken`, it is handed to that callback and answered 200 with no receipt
 *   and without your handler; without it, it is refused like any unsigned request.
 * - **Signature**: `X-Notion-Signature: sha256=<hex HMAC-SHA256 of the raw body>` under the
 *   verification token. No timestamp is signed.
 * - **Retention**: 7 days (Notion's retry schedule is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.notion({
 *   verificationToken: process.env.NOTION_VERIFICATION_TOKEN!,
 *   onVerificationToken: (token) => console.info('Notion verification token:', token),
 * });
 * @throws {ConfigError} naming `verificationToken` or `onVerificationToken` when invalid.
 * @see docs/providers.md#notion
 */
export const notion = /* @__PURE__ */ hmacMember<NotionOptions, NotionMinimalEvents>({
  provider: 'notion',
  secret: ['verificationToken', 'the verification token'],
  signature: { signatureHeader: 'x-notion-signature', prefix: 'sha256=' },
  key: [/* @__PURE__ */ bodyField('id'), 'event id in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('type'),
  extend: (preset, _ring, options) => notionExtras(options)(preset),
});

/**
 * Options of {@link viber}: `authToken`, the bot's authentication token (the key Viber signs
 * with), or the old and the new one while you regenerate it; or `resolveSecret`, a lookup per
 * request (a bot per customer).
 */
export type ViberOptions = SecretOptions<'authToken', string>;

/**
 * A Viber callback as this preset reads it: `event` (the event name) and `message_token` (part
 * of the key; a 64-bit number, read from the raw body's digits).
 */
export type ViberMinimalEvent = Named<'event'>;

/** Viber's callback events: any name, each a {@link ViberMinimalEvent}. */
export type ViberMinimalEvents = Record<string, ViberMinimalEvent>;

/**
 * The digits of the top-level `message_token`: a 64-bit integer that a JavaScript number would
 * round, so two tokens could read alike. Read from the raw text; a JSON string cannot hold an
 * unescaped quote, so the match is a key, and the parsed body must hold that key at its top.
 */
function messageToken(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  if (body === undefined || !('message_token' in body)) return undefined;
  if (typeof body.message_token === 'string') return idPart(body.message_token);
  return /"message_token"\s*:\s*(\d{1,20})\b/.exec(bodyText(request) ?? '')?.[1];
}

/** The user a callback is about: `sender.id` (message), `user.id` (subscribed…) or `user_id` (seen…). */
function viberUser(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const nested = (field: string) => {
    const value = body?.[field];
    return isJsonObject(value) ? idPart(value.id) : undefined;
  };
  return nested('sender') ?? nested('user') ?? idPart(body?.user_id);
}

/**
 * `event:message_token[:user]`: a delivery or read receipt of one broadcast message carries the
 * message's token for each user, so the user is part of the key where the callback names one.
 */
function viberKey(request: HttpRequest): string | undefined {
  const event = idPart(jsonBody(request)?.event);
  const token = messageToken(request);
  if (event === undefined || token === undefined) return undefined;
  const user = viberUser(request);
  return user === undefined ? `${event}:${token}` : `${event}:${token}:${user}`;
}

/** The signed `webhook` callback Viber sends when the webhook is set: answered 200, never booked. */
function viberWebhookCallback(request: HttpRequest) {
  return jsonBody(request)?.event === 'webhook' ? handshakeJson(200, '{}') : undefined;
}

/**
 * Viber bot webhook preset (REST Bot API callbacks: messages, subscriptions, delivery and read
 * receipts of one bot).
 *
 * - **Key**: `event:message_token`, with the user (`sender.id`, `user.id` or `user_id`) where the
 *   callback names one. Viber sends no delivery id; `message_token` is read from the raw digits,
 *   as it does not fit a JavaScript number.
 * - **Handshake**: setting the webhook sends a signed `{"event": "webhook", …}` callback: answered
 *   200 with no receipt and without your handler.
 * - **Signature**: `X-Viber-Content-Signature` is the hex HMAC-SHA256 of the raw body under the
 *   bot's authentication token. No freshness rule is documented for the body's `timestamp`.
 * - **Retention**: 7 days (Viber's retry schedule is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.viber({ authToken: process.env.VIBER_AUTH_TOKEN! });
 * @throws {ConfigError} naming `authToken` when invalid.
 * @see docs/providers.md#viber
 */
export const viber = /* @__PURE__ */ hmacMember<ViberOptions, ViberMinimalEvents>({
  provider: 'viber',
  secret: ['authToken', "the bot's authentication token"],
  signature: { signatureHeader: 'x-viber-content-signature' },
  key: [viberKey, 'event and message_token in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('event'),
  extend: () => ({ handshake: viberWebhookCallback }),
});
