/**
 * @module Resend's own webhook event types for the Resend preset, from `resend` (an optional
 * peer): `providers.resend<ResendEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { WebhookEventPayload } from 'resend';
import type { EventsByType } from '../events';

/** Every Resend webhook event: `resend`'s `WebhookEventPayload`. */
export type ResendEvent = WebhookEventPayload;

/** Each Resend event name (`email.delivered`) to its event. */
export type ResendEvents = EventsByType<WebhookEventPayload>;
