/**
 * @module Calendly preset: the event name with the payload's URI as the key,
 * `Calendly-Webhook-Signature` (`t=…,v1=…`) verified on the raw body with a timestamp tolerance.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { typed, type TypedPreset } from './events';
import { clockOption, requireOptions, toleranceOption } from './options';
import { header, idPart, isJsonObject, jsonBody } from './request-fields';
import { firstMatch, keyring, stringSecret, type SecretOptions } from './secrets';
import { timestampedHmac } from './timestamped-hmac';

/**
 * Options of {@link calendly}: `signingKey`, the webhook signing key (`signing_key` of the
 * subscription), or several; or `resolveSecret`, a lookup per request.
 */
export type CalendlyOptions = SecretOptions<'signingKey', string> & {
  /** Accepted distance between the signed `t` and now, in seconds. Defaults to 180 (Calendly's example). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
};

/** A Calendly delivery as this preset reads it: `event` (the event name) and `payload.uri`. Calendly publishes no SDK types. */
export interface CalendlyMinimalEvent {
  readonly event: string;
  readonly payload: { readonly uri: string };
}

/** Calendly's events: any name, each a {@link CalendlyMinimalEvent}. */
export type CalendlyMinimalEvents = Record<string, CalendlyMinimalEvent>;

/** `event:payload.uri`; `undefined` without either. */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const event = idPart(body?.event);
  const uri = isJsonObject(body?.payload) ? idPart(body.payload.uri) : undefined;
  return event === undefined || uri === undefined ? undefined : `${event}:${uri}`;
}

/** The first `t` and every `v1` of `t=…,v1=…`. */
function parseSignature(value: string): { stamp: string | undefined; v1: string[] } {
  let stamp: string | undefined;
  const v1: string[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq === -1) continue;
    const name = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (name === 't' && stamp === undefined) stamp = text;
    else if (name === 'v1') v1.push(text);
  }
  return { stamp, v1 };
}

/**
 * Calendly webhook preset (`invitee.created`, `invitee.canceled`, `invitee_no_show.*`,
 * `routing_form_submission.created`).
 *
 * - **Key**: `event:payload.uri` (`invitee.created:https://api.calendly.com/scheduled_events/…/invitees/…`).
 *   A delivery has no id of its own; the payload's URI names the invitee (or submission), and
 *   the event name keeps its creation and its cancellation apart.
 * - **Signature**: `Calendly-Webhook-Signature: t=<unix>,v1=<hex>`, HMAC-SHA256 of `${t}.${rawBody}`
 *   under the signing key; `t` must be within `toleranceSeconds` of now, either way.
 * - **Retention**: 7 days (Calendly retries failed deliveries; the schedule is UNCONFIRMED here).
 *
 * @example
 * const preset = providers.calendly({ signingKey: process.env.CALENDLY_WEBHOOK_SIGNING_KEY! });
 * @throws {ConfigError} naming `signingKey`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#calendly
 */
export function calendly<Events extends object = CalendlyMinimalEvents>(
  options: CalendlyOptions,
): TypedPreset<Events> {
  const o = requireOptions('calendly', options);
  const now = clockOption('calendly', o.clock);
  const ring = keyring(
    stringSecret('calendly', 'signingKey', 'the signing key', now),
    o.signingKey,
    o.resolveSecret,
  );
  const check = timestampedHmac({
    encoding: 'hex',
    toleranceSeconds: toleranceOption('calendly', o.toleranceSeconds, 180),
    now,
  });
  return typed<Events>(
    {
      provider: 'calendly',
      keyDescription: 'event and payload.uri in the body',
      needsRawBody: true,
      retentionDays: 7,
      key: (request) => ring.scope(request, eventKey(request)),
      verify(request) {
        return ring.verify(request, (r, keys) => {
          const { rawBody } = r;
          const value = header(r, 'calendly-webhook-signature');
          if (rawBody === undefined || value === undefined) return undefined;
          const { stamp, v1 } = parseSignature(value);
          const signature = { stamp, signatures: v1, signed: (t: string) => [`${t}.`, rawBody] };
          return firstMatch(keys, (key) => check(key, signature));
        });
      },
    },
    (request) => idPart(jsonBody(request)?.event),
  );
}
