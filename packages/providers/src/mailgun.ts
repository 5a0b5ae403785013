/**
 * @module Mailgun preset: `event-data.id` as the key, the body's `signature` block (hex HMAC-SHA256
 * of timestamp + token under the webhook signing key) checked, event data fingerprinted alone.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { canonicalFingerprint } from './fingerprint';
import { clockOption, requireOptions, toleranceOption } from './options';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import { firstMatch, stringKeyring, type TimedSecretOptions } from './secrets';
import { hmacMatches, isFresh, parseUnixSeconds } from './signature';

/**
 * Options of {@link mailgun}: `signingKey`, the HTTP webhook signing key (Sending, Webhooks; not
 * the API key), or several while you rotate it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: refuse a `signature.timestamp` further than this from now, in seconds,
 * either way. Off by default: Mailgun calls the check optional and warns that its own delays can
 * be long.
 */
export type MailgunOptions = TimedSecretOptions<'signingKey'>;

/** A Mailgun delivery as this preset reads it: `event-data.id` (the key) and `event-data.event` (the event name). */
export interface MailgunMinimalEvent {
  readonly 'event-data': { readonly id: string; readonly event: string };
}

/** Mailgun's events: any name, each a {@link MailgunMinimalEvent}. */
export type MailgunMinimalEvents = Record<string, MailgunMinimalEvent>;

/** The signed block of a delivery: what was signed and the signatures; `undefined` when unusable. */
function signedBlock(request: HttpRequest, tolerance: number | undefined, now: () => number) {
  const block = jsonBody(request)?.signature;
  if (!isJsonObject(block)) return undefined;
  const { token, signature } = block;
  const timestamp = typeof block.timestamp === 'number' ? String(block.timestamp) : block.timestamp;
  const seconds = parseUnixSeconds(typeof timestamp === 'string' ? timestamp : undefined);
  if (seconds === undefined || typeof token !== 'string' || !TOKEN.test(token)) return undefined;
  if (tolerance !== undefined && !isFresh(seconds, now(), tolerance)) return undefined;
  const given = [signature, block['parent-signature']].filter(
    (value): value is string => typeof value === 'string',
  );
  return { text: `${timestamp}${token}`, given };
}

const TOKEN = /^[0-9a-zA-Z]{1,200}$/;

/**
 * Mailgun webhook preset (delivered, opened, clicked, failed, complained… events, JSON bodies).
 *
 * - **Key**: `event-data.id`, the event's id.
 * - **Fingerprint**: the canonical JSON of `event-data` alone: the `signature` block is not part of
 *   the event, so a retry signed with another token (UNCONFIRMED whether Mailgun re-signs) is replayed.
 * - **Signature**: `signature.signature` (or, for a subaccount's domain, `parent-signature`) is the
 *   hex HMAC-SHA256 of `signature.timestamp` followed by `signature.token`, under the webhook signing
 *   key. It covers **neither the key nor the event data**: anyone holding one signed request can post
 *   other event data under it. Set `toleranceSeconds` to bound how long a captured signature works.
 * - **Retention**: 7 days. Mailgun retries for 8 hours (a 406 answer stops it).
 *
 * @example
 * const preset = providers.mailgun({ signingKey: process.env.MAILGUN_WEBHOOK_SIGNING_KEY! });
 * @throws {ConfigError} naming `signingKey`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#mailgun
 */
export function mailgun<Events extends object = MailgunMinimalEvents>(
  options: MailgunOptions,
): TypedPreset<Events> {
  const o = requireOptions('mailgun', options);
  const tolerance = toleranceOption('mailgun', o.toleranceSeconds);
  const now = clockOption('mailgun', o.clock);
  const ring = stringKeyring('mailgun', o, 'signingKey', 'the webhook signing key', { now });

  return keyedPreset<Events, string>(ring, {
    provider: 'mailgun',
    keyDescription: 'event-data.id in the body',
    needsRawBody: false,
    retentionDays: 7,
    id(request) {
      const event = jsonBody(request)?.['event-data'];
      return isJsonObject(event) ? idPart(event.id) : undefined;
    },
    fingerprint(request) {
      const event = jsonBody(request)?.['event-data'];
      return isJsonObject(event) ? canonicalFingerprint(event) : undefined;
    },
    signedWith(r, keys) {
      const signed = signedBlock(r, tolerance, now);
      return (
        signed && firstMatch(keys, (key) => hmacMatches(key, [signed.text], signed.given, 'hex'))
      );
    },
    eventType: (request) => {
      const event = jsonBody(request)?.['event-data'];
      return isJsonObject(event) ? idPart(event.event) : undefined;
    },
  });
}
