/**
 * @module Dropbox Sign (HelloSign) preset: the event posted as the `json` part of a multipart
 * form, its `event_hash` the HMAC-SHA256 of `event_time + event_type` under the API key: the rest
 * of the body is not signed. Every event is acknowledged with the text `Hello API Event Received`.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { objectFingerprint } from './fingerprint';
import { keyedPreset } from './keyed-preset';
import { formTextField } from './multipart';
import { idPart, isJsonObject, type JsonObject, parseJsonObject } from './request-fields';
import { firstMatch, timedKeyring, type TimedSecretOptions } from './secrets';
import { hmacMatches, isFresh, parseUnixSeconds } from './signature';
import { acknowledged, inProgressText, refusedText } from './text-protocol';

/**
 * Options of {@link dropboxSign}: `apiKey`, the account's API key (Dropbox Sign signs every
 * event, account and app callbacks alike, with it), or several while you change it; or
 * `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: how far `event_time` may be from now, either way, in seconds. Dropbox Sign
 * documents no window and its retries keep the event's time, so none is checked unless you set
 * one.
 */
export type DropboxSignOptions = TimedSecretOptions<'apiKey'>;

/** An event callback as this preset reads it (the `json` part). */
export interface DropboxSignMinimalCallback {
  readonly event: {
    readonly event_time: string;
    readonly event_type: string;
    readonly event_hash: string;
    readonly event_metadata?: { readonly related_signature_id?: string | null };
  };
  readonly signature_request?: { readonly signature_request_id: string };
  readonly template?: { readonly template_id: string };
  readonly account?: { readonly account_id: string };
}

/** Dropbox Sign's event types: any name, each a {@link DropboxSignMinimalCallback}. */
export type DropboxSignMinimalEvents = Record<string, DropboxSignMinimalCallback>;

/** What Dropbox Sign needs in the body of every answer to count an event delivered. */
const DROPBOX_SIGN_ANSWER = 'Hello API Event Received';
const CALLBACK_TEST = 'callback_test';

const cache = new WeakMap<HttpRequest, JsonObject | undefined>();

/** The callback's JSON (the `json` form field), parsed once per request. */
function callback(request: HttpRequest): JsonObject | undefined {
  if (cache.has(request)) return cache.get(request);
  const text = formTextField(request, 'json');
  const parsed = text === undefined ? undefined : parseJsonObject(text);
  cache.set(request, parsed);
  return parsed;
}

/** The callback's `event` object. */
function eventOf(request: HttpRequest): JsonObject | undefined {
  const event = callback(request)?.event;
  return isJsonObject(event) ? event : undefined;
}

/** A field of one of the callback's objects (`signature_request.signature_request_id`). */
function objectId(body: JsonObject, object: string, field: string): string | undefined {
  const value = body[object];
  return isJsonObject(value) ? idPart(value[field]) : undefined;
}

/**
 * `event_type:event_time:object id[:related_signature_id]`: a fallback, Dropbox Sign gives an
 * event no id. The object is the signature request, else the template, else the account.
 */
function callbackKey(request: HttpRequest): string | undefined {
  const body = callback(request);
  const event = eventOf(request);
  if (!body || !event) return undefined;
  const type = idPart(event.event_type);
  const time = idPart(event.event_time);
  const object =
    objectId(body, 'signature_request', 'signature_request_id') ??
    objectId(body, 'template', 'template_id') ??
    objectId(body, 'account', 'account_id');
  if (type === undefined || time === undefined || object === undefined) return undefined;
  const metadata = event.event_metadata;
  const signature = isJsonObject(metadata) ? idPart(metadata.related_signature_id) : undefined;
  return [type, time, object, ...(signature === undefined ? [] : [signature])].join(':');
}

/**
 * Dropbox Sign preset (formerly HelloSign: account and app event callbacks).
 *
 * - **Signed: only `event_time` and `event_type`.** `event.event_hash` is the hex
 *   HMAC-SHA256 of `event_time + event_type` under the API key; the rest of the event (which
 *   signature request, which signer, its status) is not signed, so a captured callback's hash
 *   passes with any other body: re-fetch the signature request by its id before acting on it.
 * - **Key**: `event_type:event_time:<signature_request_id | template_id | account_id>`, plus
 *   `:related_signature_id` when the event names a signer: a fallback, the events carry no id.
 * - **Handshake**: a verified `callback_test` event (sent when you set the callback URL) is
 *   answered `Hello API Event Received` by the preset: no receipt, no handler.
 * - **Answers**: the handler must answer `Hello API Event Received` (status 200) for every
 *   event; Dropbox Sign sends the event again otherwise. A failed signature and an event in
 *   progress are answered in plain text (401, 409), never that text.
 * - **Fingerprint**: the parsed `json` part, whatever the multipart boundary of a re-send.
 * - **Retention**: 14 days (the retry schedule is UNCONFIRMED).
 *
 * @example
 * const preset = providers.dropboxSign({ apiKey: process.env.DROPBOX_SIGN_API_KEY! });
 * @throws {ConfigError} naming `apiKey`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#dropbox-sign
 */
export const dropboxSign: PresetFactory<DropboxSignOptions, DropboxSignMinimalEvents> = (
  options,
) => {
  const { ring, now, tolerance } = timedKeyring(
    'dropboxSign',
    options,
    ['apiKey', 'the API key'],
    // No window unless one is given: an infinite tolerance checks nothing.
    Number.POSITIVE_INFINITY,
  );

  return keyedPreset(ring, {
    provider: 'dropbox-sign',
    keyDescription: 'event_type, event_time and the object id (Dropbox Sign sends no event id)',
    // The event is a part of a multipart form, which body parsers commonly leave unread.
    needsRawBody: true,
    retentionDays: 14,
    id: callbackKey,
    handshake: (request) =>
      eventOf(request)?.event_type === CALLBACK_TEST
        ? acknowledged(DROPBOX_SIGN_ANSWER)
        : undefined,
    signedWith(request, keys) {
      const event = eventOf(request);
      const time = idPart(event?.event_time);
      const { event_type: type, event_hash: hash } = event ?? {};
      if (time === undefined || typeof type !== 'string' || typeof hash !== 'string')
        return undefined;
      const sent = parseUnixSeconds(time);
      if (sent === undefined || !isFresh(sent, now(), tolerance)) return undefined;
      return firstMatch(keys, (key) => hmacMatches(key, [time, type], [hash], 'hex'));
    },
    fingerprint: objectFingerprint(callback),
    unauthorized: refusedText,
    inProgress: inProgressText,
    eventType: (request) => idPart(eventOf(request)?.event_type),
  });
};
