/**
 * @module Twitch EventSub preset: `Twitch-Eventsub-Message-Id` as the key, the `sha256=` HMAC of
 * id + timestamp + raw body, the subscription's challenge answered before any claim.
 */
import { ConfigError } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { timedMember } from './keyring-members';
import { header, headerId, isJsonObject, jsonBody } from './request-fields';
import { handshakeRefused, handshakeText } from './response';
import { firstMatch, type TimedSecretOptions } from './secrets';
import { hmacMatches } from './signature';

/**
 * Options of {@link twitch}: `secret`, the `transport.secret` you gave when creating the
 * subscription (10 to 100 ASCII characters), or several; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted age of `Twitch-Eventsub-Message-Timestamp`, in seconds. Defaults to
 * 600 (Twitch's 10 minutes).
 */
export type TwitchOptions = TimedSecretOptions<'secret'>;

/**
 * An EventSub message as this preset reads it: its `subscription.type` (the event name, also the
 * `Twitch-Eventsub-Subscription-Type` header). Twitch publishes no TypeScript types of its own.
 */
export interface TwitchMinimalMessage {
  readonly subscription: { readonly type: string };
}

/** Twitch's subscription types: any name, each a {@link TwitchMinimalMessage}. */
export type TwitchMinimalEvents = Record<string, TwitchMinimalMessage>;

/** A subscription secret: 10 to 100 characters. */
function subscriptionSecret(key: string): string {
  if (key.length < 10 || key.length > 100)
    throw new ConfigError('secret', 'twitch() needs the subscription secret: 10 to 100 characters');
  return key;
}

const PREFIX = 'sha256=';
/** RFC 3339 in UTC or with an offset; Twitch sends nanoseconds, of which milliseconds are read. */
const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/** Milliseconds since the epoch of an RFC 3339 timestamp, or `undefined` when it is not one. */
function parseRfc3339(text: string | undefined): number | undefined {
  const match = text === undefined ? null : RFC3339.exec(text);
  if (!match) return undefined;
  const ms = Date.parse(`${match[1]}.${(match[2] ?? '').padEnd(3, '0').slice(0, 3)}${match[3]}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Twitch EventSub preset (the webhook transport: follows, subscriptions, cheers, stream online…).
 *
 * - **Key**: `Twitch-Eventsub-Message-Id`. Twitch delivers at least once and, when it is unsure
 *   a notification arrived, sends it again with the same message id.
 * - **Handshake**: a verified `webhook_callback_verification` message is answered with its
 *   `challenge` as plain text (`nosniff`), by the preset: no receipt, no handler; one without a
 *   challenge string is answered 400, never taken for a delivery. Revocations are deliveries.
 * - **Signature**: `Twitch-Eventsub-Message-Signature: sha256=<hex HMAC-SHA256(secret, id +
 *   timestamp + rawBody)>`; the id, the timestamp and the body are all signed. The timestamp (RFC
 *   3339) must be no more than `toleranceSeconds` old (or ahead), as Twitch asks, against replays.
 * - **Retention**: 7 days. Twitch publishes no retry schedule (UNCONFIRMED); it revokes a
 *   subscription whose endpoint keeps failing.
 *
 * @example
 * const preset = providers.twitch({ secret: process.env.TWITCH_EVENTSUB_SECRET! });
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#twitch-eventsub
 */
export const twitch: PresetFactory<TwitchOptions, TwitchMinimalEvents> =
  /* @__PURE__ */ timedMember<TwitchOptions, string, KeyedRow<string>>({
    provider: 'twitch',
    secret: ['secret', 'the subscription secret'],
    toleranceSeconds: 600,
    toKey: subscriptionSecret,
    family: keyedPreset,
    row: (_, { now, tolerance }) => ({
      keyDescription: 'Twitch-Eventsub-Message-Id header',
      needsRawBody: true,
      retentionDays: 7,
      id: headerId('twitch-eventsub-message-id'),
      handshake(request) {
        if (header(request, 'twitch-eventsub-message-type') !== 'webhook_callback_verification')
          return undefined;
        const challenge = jsonBody(request)?.challenge;
        if (typeof challenge !== 'string' || challenge === '')
          return handshakeRefused(
            'The webhook_callback_verification carries no challenge string to answer; a verification is never a delivery, so nothing was stored',
          );
        return handshakeText(200, challenge);
      },
      signedWith(r, keys) {
        const id = header(r, 'twitch-eventsub-message-id');
        const stamp = header(r, 'twitch-eventsub-message-timestamp');
        const given = header(r, 'twitch-eventsub-message-signature');
        const { rawBody } = r;
        if (rawBody === undefined || !id || stamp === undefined || given === undefined)
          return undefined;
        if (!given.startsWith(PREFIX)) return undefined;
        const sent = parseRfc3339(stamp);
        if (sent === undefined || Math.abs(now() - sent) > tolerance * 1000) return undefined;
        const signature = given.slice(PREFIX.length);
        return firstMatch(keys, (key) =>
          hmacMatches(key, [id, stamp, rawBody], [signature], 'hex'),
        );
      },
      eventType: (request) => {
        const subscription = jsonBody(request)?.subscription;
        const type = isJsonObject(subscription) ? subscription.type : undefined;
        return typeof type === 'string' ? type : undefined;
      },
    }),
  });
