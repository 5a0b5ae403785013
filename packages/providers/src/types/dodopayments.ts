/**
 * @module Dodo Payments' own webhook event types for the Dodo Payments preset, from
 * `dodopayments` (an optional peer): `providers.dodopayments<DodoPaymentsEvents>({ secret })`.
 * Types only: nothing loads at run time.
 */
import type { UnwrapWebhookEvent } from 'dodopayments/resources/webhooks';
import type { EventsByType } from '../events';

/** Every Dodo Payments webhook event: `dodopayments`' `UnwrapWebhookEvent`. */
export type DodoPaymentsEvent = UnwrapWebhookEvent;

/** Each Dodo Payments event name (`payment.succeeded`) to its event. */
export type DodoPaymentsEvents = EventsByType<UnwrapWebhookEvent>;
