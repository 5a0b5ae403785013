/**
 * @module Mailchimp Transactional (Mandrill) preset: a form whose `mandrill_events` field holds a
 * JSON array of events, signed by `X-Mandrill-Signature`, the base64 HMAC-SHA1 of the webhook's
 * URL as entered in Mandrill followed by each POST parameter's name and value sorted by name.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { batchedPreset, idOrContent } from './batched';
import type { PresetFactory } from './events';
import { byName, formEntries } from './multipart';
import { requireOptions, requireString } from './options';
import { formFields, header, idPart, isJsonObject } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hmacMatches } from './signature';

/**
 * Options of {@link mandrill}: `webhookKey`, the webhook's authentication key (Mandrill's Webhooks
 * page, Key column), or several while you reset it; or `resolveSecret`, a lookup per request.
 */
export type MandrillOptions = SecretOptions<'webhookKey', string> & {
  /**
   * The webhook's URL exactly as entered in Mandrill, query included (a trailing slash matters):
   * Mandrill signs that text, not the URL a proxy forwards to. Or a function of the request.
   */
  webhookUrl: string | ((request: HttpRequest) => string);
};

/** One event of a batch as this preset reads it: `event` (message events) or `type` (sync events). */
export interface MandrillMinimalEvent {
  readonly event?: string;
  readonly type?: string;
  readonly _id?: string;
  readonly ts?: number;
}

/** Mandrill's event names (`send`, `open`, `click`, `hard_bounce`, `inbound`, `whitelist`…). */
export type MandrillMinimalEvents = Record<string, MandrillMinimalEvent>;

const itemCache = new WeakMap<HttpRequest, readonly unknown[] | undefined>();

/** The `mandrill_events` form field's JSON array, parsed once per request. */
function eventsOf(request: HttpRequest): readonly unknown[] | undefined {
  if (itemCache.has(request)) return itemCache.get(request);
  let events: readonly unknown[] | undefined;
  try {
    const parsed: unknown = JSON.parse(formFields(request).get('mandrill_events') ?? '');
    events = Array.isArray(parsed) ? parsed : undefined;
  } catch {
    events = undefined;
  }
  itemCache.set(request, events);
  return events;
}

/** The webhook URL as a function of the request, checked once. */
function urlOf(url: unknown): (request: HttpRequest) => string {
  if (typeof url === 'function') return url as (request: HttpRequest) => string;
  const text = requireString(
    'mandrill',
    'webhookUrl',
    url,
    'the webhook URL as entered in Mandrill',
  );
  if (!/^https?:\/\/\S+$/.test(text))
    throw new ConfigError(
      'webhookUrl',
      `mandrill() needs webhookUrl as an absolute http(s) URL, got "${text}"`,
    );
  return () => text;
}

/**
 * Mailchimp Transactional (Mandrill) preset (message, sync and inbound webhooks).
 *
 * - **Batched**: the `mandrill_events` form field is a JSON array of events; each is an item
 *   with its own receipt, keyed on the SHA-256 of its content (`sha256:…`). A Mandrill event has
 *   no id of its own (`_id` names the message, shared by its send, opens and clicks), so a re-sent
 *   event is one receipt and any two events that differ in anything are two. Run them with
 *   `idempotency.batch.each` and answer 2xx.
 * - **Signature**: `X-Mandrill-Signature` = base64 HMAC-SHA1, under the webhook's key, of
 *   `webhookUrl` followed by each POST parameter's name and value, sorted by name; compared in
 *   constant time. Nothing else (no time) is signed.
 * - **Retention**: 7 days (the retry schedule is UNCONFIRMED).
 *
 * @example
 * const preset = providers.mandrill({
 *   webhookKey: process.env.MANDRILL_WEBHOOK_KEY!,
 *   webhookUrl: 'https://example.com/webhooks/mandrill',
 * });
 * @throws {ConfigError} naming `webhookKey`, `resolveSecret` or `webhookUrl` when invalid.
 * @see docs/providers.md#mailchimp-transactional-mandrill
 */
export const mandrill: PresetFactory<MandrillOptions, MandrillMinimalEvents> = (options) => {
  const o = requireOptions('mandrill', options);
  const ring = stringKeyring('mandrill', o, 'webhookKey', "the webhook's authentication key");
  const urlFor = urlOf(o.webhookUrl);

  return batchedPreset(ring, {
    provider: 'mandrill',
    keyDescription: 'the SHA-256 of each event in mandrill_events',
    needsRawBody: false,
    retentionDays: 7,
    items: eventsOf,
    item: idOrContent(),
    signedWith(request, keys) {
      const given = header(request, 'x-mandrill-signature');
      if (given === undefined || eventsOf(request) === undefined) return undefined;
      const pairs = byName(formEntries(request)).map(([name, value]) => name + value);
      const url = urlFor(request);
      return firstMatch(keys, (key) =>
        hmacMatches(key, [url, ...pairs], [given], 'base64', 'sha1'),
      );
    },
    itemType: (item) => (isJsonObject(item) ? idPart(item.event ?? item.type) : undefined),
  });
};
