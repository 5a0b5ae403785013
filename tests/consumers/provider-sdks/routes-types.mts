// Compiled (strict, `skipLibCheck: false`, nodenext) by tests/consumers/packed-tarballs.test.ts in
// a consumer that installed `stripe` beside our tarballs: a route's handler gets the provider's
// own type for its event (all events under a prefix for `'invoice.*'`, every event for `'*'`),
// a misspelt event name does not compile, and a schema's output type reaches its handler (an
// unused `@ts-expect-error` fails the build).
import * as providers from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import { routes, type StandardSchema, validated } from '@webhook-idempotency/core/routes';
import type Stripe from 'stripe';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const stripe = providers.stripe<StripeEvents>({ secret: 'whsec_routes' });

/** A schema whose output is not its input: the handler must get `{ cents: number }`. */
declare const Cents: StandardSchema<unknown, { readonly cents: number }>;

export const routed = routes(stripe, {
  'payment_intent.succeeded': (event) => {
    const exact: Equal<typeof event, Stripe.PaymentIntentSucceededEvent> = true;
    return { exact, amount: event.data.object.amount };
  },
  'invoice.*': (event) => {
    const invoice: Stripe.Invoice = event.data.object;
    return invoice.id;
  },
  'charge.succeeded': validated(Cents, (payment, { key, transaction }) => {
    const output: Equal<typeof payment, { readonly cents: number }> = true;
    return { output, cents: payment.cents, id: key.externalId, transaction };
  }),
  '*': (event, { event: name }) => {
    const any: Stripe.Event = event;
    return [any.id, name];
  },
});

routes(stripe, {
  // @ts-expect-error a misspelt Stripe event name is not a route
  'payment_intent.succeded': () => undefined,
});

routes(stripe, {
  // @ts-expect-error a payment intent's event has no invoice on it
  'payment_intent.created': (event) => event.data.object.lines,
});

validated(Cents, (payment) => {
  // @ts-expect-error the schema's output has no `amount`
  return payment.amount;
});

export const preset: typeof stripe = routed;
