/**
 * @module Persona, a member of the timestamped-HMAC family (`Persona-Signature: t=<unix>,v1=<hex>`)
 * whose header holds two space-separated `t=…,v1=…` groups while a webhook's secret rotates.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { presentExternalId } from '@webhook-idempotency/core/adapter';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { signatureList, stampDotBody, timestampedMember } from './timestamped-family';

/**
 * Options of {@link persona}: `secret`, the webhook's secret (Dashboard → Webhooks), or several
 * while you rotate it; or `resolveSecret`, a lookup per request (one organization per customer).
 *
 * `toleranceSeconds`: accepted distance between the signed `t` and now, in seconds. Defaults to
 * 300.
 */
export type PersonaOptions = TimedSecretOptions<'secret'>;

/**
 * A Persona event as this preset reads it: `data.id` (`evt_…`, the key) and
 * `data.attributes.name` (the event name). Persona publishes no Node SDK.
 */
export interface PersonaMinimalEvent {
  readonly data: {
    readonly type: 'event';
    readonly id: string;
    readonly attributes: { readonly name: string; readonly payload?: unknown };
  };
}

/** Persona's events: any name, each a {@link PersonaMinimalEvent}. */
export type PersonaMinimalEvents = Record<string, PersonaMinimalEvent>;

/** The body's `data` object, or `undefined`. */
function eventData(request: HttpRequest) {
  const data = jsonBody(request)?.data;
  return isJsonObject(data) ? data : undefined;
}

const readGroup = /* @__PURE__ */ signatureList(',', 't', 'v1');

/**
 * Persona webhook preset (inquiries, verifications, reports, cases…) (docs/providers.md#persona).
 *
 * - **Key**: the event's `data.id` (`evt_…`): Persona says an event may arrive more than once,
 *   and a retry carries the same event.
 * - **Signature**: `Persona-Signature: t=<unix>,v1=<hex>`, v1 = HMAC-SHA256(secret,
 *   `${t}.${rawBody}`), constant time; while a secret rotates the header holds two such groups
 *   separated by a space, each with its own `t`, and either may match under any secret given.
 *   `t` within `toleranceSeconds` of now, either way.
 * - **Events**: `eventType(request)` is `data.attributes.name` (`inquiry.completed`).
 * - **Retention**: 7 days (Persona retries failed deliveries; its current schedule is not
 *   published where we read).
 *
 * @example
 * const preset = providers.persona({ secret: process.env.PERSONA_WEBHOOK_SECRET! });
 * preset.key(request); // 'evt_ABC123xyz456'
 * @throws {ConfigError} naming `secret`, `resolveSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#persona
 */
export const persona = /* @__PURE__ */ timestampedMember<PersonaOptions, PersonaMinimalEvents>({
  provider: 'persona',
  secret: ['secret', 'the webhook secret'],
  toleranceSeconds: 300,
  header: 'persona-signature',
  read: (value) =>
    value
      .split(' ')
      .filter((group) => group !== '')
      .map(readGroup),
  signed: stampDotBody,
  key: [
    (request) => presentExternalId(eventData(request)?.id),
    'data.id (the event id) in the body',
  ],
  retentionDays: 7,
  eventType: (request) => {
    const attributes = eventData(request)?.attributes;
    return isJsonObject(attributes) ? idPart(attributes.name) : undefined;
  },
});
