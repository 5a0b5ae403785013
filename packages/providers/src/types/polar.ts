/**
 * @module Polar's own webhook event types for the Polar preset, from `@polar-sh/sdk` (an optional
 * peer): `providers.polar<PolarEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { webhooks } from '@polar-sh/sdk/2026-10';
import type { EventsByType } from '../events';

/** Every Polar webhook event: `@polar-sh/sdk`'s `WebhookPayload`. */
export type PolarEvent = webhooks.WebhookPayload;

/** Each Polar event name (`order.paid`) to its event. */
export type PolarEvents = EventsByType<webhooks.WebhookPayload>;
