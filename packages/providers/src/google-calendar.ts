/**
 * @module Google Calendar push notifications preset: the channel token you set on `watch` compared
 * with `X-Goog-Channel-Token` (Google signs nothing), `X-Goog-Channel-ID:X-Goog-Message-Number`
 * as the key, and the channel's first `sync` message answered by the preset, never booked.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { keyedPreset } from './keyed-preset';
import { header, headerId, joinedId } from './request-fields';
import { handshakeText } from './response';
import type { SecretOptions } from './secrets';
import { tokenHeaderMatch, tokenKeyring } from './token-header';

/**
 * Options of {@link googleCalendar}: `token`, the `token` you set when opening the channels
 * (`events.watch`), or several (channels opened with different tokens while you change it); or
 * `resolveSecret`, a lookup per request (one token per channel: the tenant can be
 * `X-Goog-Channel-ID`).
 */
export type GoogleCalendarOptions = SecretOptions<'token', string>;

/**
 * A Google Calendar notification carries no body: its resource state (`sync`, `exists`,
 * `not_exists`, the event name) is the header `X-Goog-Resource-State`; re-read the calendar (a
 * sync token) on each.
 */
export type GoogleCalendarMinimalEvents = Record<'sync' | 'exists' | 'not_exists', object>;

const SYNC = handshakeText(200, '');

/** `channel id:message number`: the number identifies a message of its channel. */
function messageKey(request: HttpRequest): string | undefined {
  return joinedId([header(request, 'x-goog-channel-id'), header(request, 'x-goog-message-number')]);
}

/**
 * Google Calendar push notifications preset (`events.watch`, `calendarList.watch`,
 * `settings.watch`, `acl.watch` channels).
 *
 * - **Key**: `X-Goog-Channel-ID:X-Goog-Message-Number`. Google numbers the messages of a channel
 *   (not one after the other); a retry of one is expected to carry its number (UNCONFIRMED).
 * - **Handshake**: the `sync` message Google sends when a channel opens (`X-Goog-Resource-State:
 *   sync`) is answered 200 by the preset, with no receipt and without your handler.
 * - **Authentication**: Google signs nothing. `X-Goog-Channel-Token` must equal the token you set
 *   on the channel, compared in constant time (both sides hashed first). It covers nothing else:
 *   anyone who saw one notification can send it again or send others; a notification only says
 *   "something changed", so re-read the calendar from the API.
 * - **Retention**: 7 days (Google's retry window is unpublished).
 *
 * @example
 * const preset = providers.googleCalendar({ token: process.env.GOOGLE_CHANNEL_TOKEN! });
 * @throws {ConfigError} naming `token` when invalid.
 * @see docs/providers.md#google-calendar-push-notifications
 */
export const googleCalendar: PresetFactory<GoogleCalendarOptions, GoogleCalendarMinimalEvents> = (
  options,
) => {
  const ring = tokenKeyring('googleCalendar', options, 'token', 'the channel token');
  const state = headerId('x-goog-resource-state');
  return keyedPreset(ring, {
    provider: 'google-calendar',
    keyDescription: 'X-Goog-Channel-ID and X-Goog-Message-Number headers',
    needsRawBody: false,
    retentionDays: 7,
    id: messageKey,
    signedWith: tokenHeaderMatch('x-goog-channel-token'),
    handshake: (request) => (state(request) === 'sync' ? SYNC : undefined),
    eventType: state,
  });
};
