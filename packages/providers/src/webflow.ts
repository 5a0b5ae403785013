/**
 * @module Webflow, a member of the timestamped-HMAC family whose stamp is in milliseconds, in a
 * header of its own (`x-webflow-timestamp`), signed with a colon before the body.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { bodyField, header, idPart, isJsonObject, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { timestampedMember } from './timestamped-family';

/**
 * Options of {@link webflow}: `secret`, the webhook's secret (or the OAuth app's client secret for
 * webhooks an app created), or several while you change it; or `resolveSecret`, a lookup per
 * request (one app per site).
 *
 * `toleranceSeconds`: accepted distance between `x-webflow-timestamp` and now, in seconds.
 * Defaults to 300.
 */
export type WebflowOptions = TimedSecretOptions<'secret'>;

/** A Webflow delivery as this preset reads it: `triggerType` (the event name) and `payload`. */
export interface WebflowMinimalEvent {
  readonly triggerType: string;
  readonly payload: { readonly id?: string };
}

/** Webflow's events: any name, each a {@link WebflowMinimalEvent}. */
export type WebflowMinimalEvents = Record<string, WebflowMinimalEvent>;

/**
 * `triggerType:payload.id`, or `triggerType:` and the first 32 hex characters of the SHA-256 of
 * the canonical JSON of `payload` when it has no id; `undefined` without either.
 */
function eventKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const trigger = idPart(body?.triggerType);
  if (trigger === undefined || !isJsonObject(body?.payload)) return undefined;
  const id = idPart(body.payload.id);
  return `${trigger}:${id ?? canonicalFingerprint(body.payload).slice(0, 32)}`;
}

/**
 * Webflow webhook preset (form submissions, site publishes, CMS items, e-commerce orders…)
 * (docs/providers.md#webflow).
 *
 * - **Key**: a fallback, as Webflow sends no delivery id: `triggerType:payload.id`
 *   (`form_submission:6321a…`), else `triggerType:` and a digest of `payload`.
 * - **Signature**: `x-webflow-signature`, hex HMAC-SHA256(secret, `${x-webflow-timestamp}:${rawBody}`),
 *   constant time; the timestamp (milliseconds) within `toleranceSeconds` of now, either way.
 * - **Retention**: 7 days (Webflow's retry schedule is not published where we read).
 *
 * @example
 * const preset = providers.webflow({ secret: process.env.WEBFLOW_WEBHOOK_SECRET! });
 * preset.key(request); // 'form_submission:6321a6f8a6bd2a5fd4a6b9f7'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#webflow
 */
export const webflow = /* @__PURE__ */ timestampedMember<WebflowOptions, WebflowMinimalEvents>({
  provider: 'webflow',
  secret: ['secret', 'the webhook secret'],
  toleranceSeconds: 300,
  header: 'x-webflow-signature',
  read: (value, request) => ({
    stamp: header(request, 'x-webflow-timestamp'),
    signatures: [value],
  }),
  stamp: 'ms',
  signed: (stamp, _, rawBody) => [`${stamp}:`, rawBody],
  key: [eventKey, 'triggerType and payload in the body'],
  retentionDays: 7,
  eventType: /* @__PURE__ */ bodyField('triggerType'),
});
