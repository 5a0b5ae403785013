/**
 * @module Chargebee preset: the event `id` as the key, HTTP Basic credentials of the webhook URL
 * (Chargebee signs nothing) compared hashed in constant time.
 */
import { type BasicAuthOptions, basicAuthPreset, credentialsKeyring } from './basic-auth';
import type { Named, PresetFactory } from './events';
import { bodyField } from './request-fields';

/**
 * Options of {@link chargebee}: the `username` and `password` you set under "Protect webhook URL
 * with basic authentication"; or `credentials`, several such pairs while you change them (any one
 * passes); or `resolveSecret`, a lookup per request (one Chargebee site per customer).
 */
export type ChargebeeOptions = BasicAuthOptions;

/** A Chargebee event as this preset reads it: its `id` (`ev_…`, the key) and `event_type` (the event name). */
export type ChargebeeMinimalEvent = Named<'id' | 'event_type'>;

/** Chargebee's events (`subscription_created`, `invoice_generated`…), each a {@link ChargebeeMinimalEvent}. */
export type ChargebeeMinimalEvents = Record<string, ChargebeeMinimalEvent>;

/**
 * Chargebee webhook preset (subscription, invoice, payment, customer events of one site).
 *
 * - **Key**: the event `id` (`ev_…`): a retry and a resend from the console post the same event.
 * - **Authentication**: Chargebee signs nothing. Protect the webhook URL with basic
 *   authentication (Chargebee's own recommendation): it sends the pair as HTTP Basic, and the
 *   preset compares it hashed, in constant time. The credentials cover no part of the body and no
 *   time: anyone who saw one delivery can send it again or send others; keep the endpoint on HTTPS.
 * - **Retention**: 30 days. Chargebee retries a failed call up to 7 times at exponential intervals
 *   over about 3 days, and an event can be resent from the console later.
 *
 * @example
 * const preset = providers.chargebee({ username: 'chargebee', password: process.env.CHARGEBEE_WEBHOOK_PASSWORD! });
 * @throws {ConfigError} naming `username`, `password` or `credentials` when invalid.
 * @see docs/providers.md#chargebee
 */
export const chargebee: PresetFactory<ChargebeeOptions, ChargebeeMinimalEvents> = (options) =>
  basicAuthPreset(credentialsKeyring('chargebee', options), {
    provider: 'chargebee',
    keyDescription: 'event id in the body',
    retentionDays: 30,
    id: bodyField('id'),
    eventType: bodyField('event_type'),
  });
