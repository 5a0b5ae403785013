/**
 * @module Calendly preset: the event name with the payload's URI as the key,
 * `Calendly-Webhook-Signature` (`t=…,v1=…`) verified on the raw body with a timestamp tolerance.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { clockOption, requireOptions, requireString, toleranceOption } from './options';
import { header, idPart, isJsonObject, jsonBody } from './request-fields';
import { safeVerify } from './safe-verify';
import { timestampedHmac } from './timestamped-hmac';

/** Options of {@link calendly}. */
export interface CalendlyOptions {
  /** The webhook signing key (`signing_key` of the webhook subscription). Required. */
  signingKey: string;
  /** Accepted distance between the signed `t` and now, in seconds. Defaults to 180 (Calendly's example). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

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
 * @throws {ConfigError} naming `signingKey`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#calendly
 */
export function calendly(options: CalendlyOptions): ProviderPreset {
  const o = requireOptions('calendly', options);
  const check = timestampedHmac({
    key: requireString('calendly', 'signingKey', o.signingKey, 'the signing key as "signingKey"'),
    encoding: 'hex',
    toleranceSeconds: toleranceOption('calendly', o.toleranceSeconds, 180),
    now: clockOption('calendly', o.clock),
  });
  return {
    provider: 'calendly',
    keyDescription: 'event and payload.uri in the body',
    needsRawBody: true,
    retentionDays: 7,
    key: eventKey,
    verify: safeVerify(function verifyCalendly(request) {
      const { rawBody } = request;
      const value = header(request, 'calendly-webhook-signature');
      if (rawBody === undefined || value === undefined) return false;
      const { stamp, v1 } = parseSignature(value);
      return check({ stamp, signatures: v1, signed: (t) => [`${t}.`, rawBody] });
    }),
  };
}
