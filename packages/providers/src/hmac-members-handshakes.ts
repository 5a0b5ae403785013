/**
 * @module The `hmac()` family's members whose endpoint also receives a handshake the preset
 * answers itself (Notion's one-time verification token). Each factory is a row of the family in
 * `hmac-family.ts`; their types come first, then the factories.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { Named } from './events';
import { canonicalFingerprint } from './fingerprint';
import { hmacMember } from './hmac-family';
import { bodyField, header, jsonBody } from './request-fields';
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
    fingerprint(request) {
      const body = jsonBody(request);
      if (body === undefined) return undefined;
      const { attempt_number, ...event } = body;
      return canonicalFingerprint(event);
    },
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
