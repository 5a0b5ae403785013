/**
 * @module PagerDuty V3 webhooks preset: `event.id` as the key, `X-PagerDuty-Signature` a
 * comma-separated list of `v1=<hex HMAC-SHA256 of the raw body>`, one per signing secret.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { secretMember } from './keyring-members';
import { header, idPart, isJsonObject, jsonBody } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hmacMatches } from './signature';

/**
 * Options of {@link pagerduty}: `secret`, the webhook subscription's signing secret, or several
 * while you rotate it; or `resolveSecret`, a lookup per request.
 */
export type PagerDutyOptions = SecretOptions<'secret', string>;

/** A V3 webhook as this preset reads it: its `event`'s `id` (the key) and `event_type`. */
export interface PagerDutyMinimalWebhook {
  readonly event: { readonly id: string; readonly event_type: string };
}

/** PagerDuty's event types (`incident.triggered`, `incident.resolved`…). */
export type PagerDutyMinimalEvents = Record<string, PagerDutyMinimalWebhook>;

const PREFIX = 'v1=';

/** The request's `event` object. */
function eventOf(request: HttpRequest) {
  const event = jsonBody(request)?.event;
  return isJsonObject(event) ? event : undefined;
}

/** The `v1` signatures of the header, prefixes removed; other versions are ignored. */
function v1Signatures(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(PREFIX))
    .map((part) => part.slice(PREFIX.length));
}

/**
 * PagerDuty V3 webhooks preset (generic webhook subscriptions: incidents, services…).
 *
 * - **Key**: `event.id`, the event's id in the signed body.
 * - **Signature**: `X-PagerDuty-Signature` holds one `v1=<hex HMAC-SHA256 of the raw body>` per
 *   signing secret, comma-separated, so that a secret can be rotated without downtime: any `v1`
 *   under any configured secret verifies. Compared in constant time; no time is signed.
 * - **Retention**: 7 days (the retry schedule is UNCONFIRMED).
 *
 * @example
 * const preset = providers.pagerduty({ secret: process.env.PAGERDUTY_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` or `resolveSecret` when invalid.
 * @see docs/providers.md#pagerduty
 */
export const pagerduty: PresetFactory<PagerDutyOptions, PagerDutyMinimalEvents> =
  /* @__PURE__ */ secretMember<PagerDutyOptions, string, KeyedRow<string>>({
    provider: 'pagerduty',
    secret: [stringKeyring, 'secret', 'the subscription signing secret'],
    family: keyedPreset,
    row: {
      keyDescription: 'event.id in the body',
      needsRawBody: true,
      retentionDays: 7,
      id: (request) => idPart(eventOf(request)?.id),
      signedWith(request, secrets) {
        const given = header(request, 'x-pagerduty-signature');
        const { rawBody } = request;
        if (given === undefined || rawBody === undefined) return undefined;
        const signatures = v1Signatures(given);
        return firstMatch(secrets, (secret) => hmacMatches(secret, [rawBody], signatures, 'hex'));
      },
      eventType: (request) => idPart(eventOf(request)?.event_type),
    },
  });
