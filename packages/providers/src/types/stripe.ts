/**
 * @module Stripe's own event types for the Stripe preset, from the `stripe` package (an optional
 * peer): `providers.stripe<StripeEvents>({ secret })`. Types only: importing this entry loads
 * nothing at run time, and only users with `stripe` installed import it.
 */
import type Stripe from 'stripe';
import type { EventsByType } from '../events';

/** Every Stripe event, as `stripe` types it: the `Stripe.Event` union. */
export type StripeEvent = Stripe.Event;

/** Each Stripe event name to its type: `StripeEvents['payment_intent.succeeded']` is `Stripe.PaymentIntentSucceededEvent`. */
export type StripeEvents = EventsByType<Stripe.Event>;
