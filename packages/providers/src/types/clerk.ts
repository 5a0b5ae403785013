/**
 * @module Clerk's own webhook event types for the Clerk preset, from `@clerk/backend` (an optional
 * peer): `providers.clerk<ClerkEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { WebhookEvent } from '@clerk/backend';
import type { EventsByType } from '../events';

/** Every Clerk webhook event: `@clerk/backend`'s `WebhookEvent`. */
export type ClerkEvent = WebhookEvent;

/** Each Clerk event name (`user.created`) to its event. */
export type ClerkEvents = EventsByType<WebhookEvent>;
