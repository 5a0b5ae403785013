/**
 * @module docs/providers.md, "Secrets" and "Event types": several secrets during a rotation, a
 * resolver per customer, and a preset typed by the provider's SDK. test/secrets.test.ts runs each.
 */
// #region event-types
import * as providers from '@webhook-idempotency/providers';
import type { EventMap } from '@webhook-idempotency/providers';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
// #endregion event-types
import type { ProviderPreset } from '@webhook-idempotency/core';

type Pair = { publicKey: string; privateKey: string };

/** Several secrets on three kinds of preset: any one verifies, in any order. */
export function rotating(
  oldPassword: string,
  newPassword: string,
  newPair: Pair,
  oldPair: Pair,
): ProviderPreset[] {
  // #region rotation
  const stripe = providers.stripe({
    secret: [process.env.STRIPE_SECRET_NEW!, process.env.STRIPE_SECRET_OLD!],
  });
  const postmark = providers.postmark({
    credentials: [
      { username: 'hook', password: oldPassword },
      { username: 'hook', password: newPassword },
    ],
  });
  const braintree = providers.braintree({ keys: [newPair, oldPair] }); // the first pair answers bt_challenge
  // #endregion rotation
  return [stripe, postmark, braintree];
}

/** Where the resolver's secrets come from in the docs' example. */
export interface SecretsTable {
  stripeSecrets(
    tenant: string | undefined,
    options: { signal: AbortSignal },
  ): Promise<string[] | undefined>;
}

/** A logger with pino's argument order. */
export interface Log {
  warn(fields: object, message: string): void;
}

/** A secret per customer, looked up by the account id in the path. */
export function perCustomer(db: SecretsTable, log: Log): ProviderPreset {
  // #region resolver
  const preset = providers.stripe({
    resolveSecret: {
      // The tenant, read cheaply from the request: a path segment, a header.
      tenant: (request) => /^\/webhooks\/stripe\/([\w-]+)$/.exec(request.url)?.[1],
      // Its secrets (one or several), sync or async; undefined when the account is unknown.
      secrets: async (tenant, { signal }) => db.stripeSecrets(tenant, { signal }),
      cache: { max: 1000, ttlMs: 60_000, missTtlMs: 5_000 }, // the defaults
      concurrency: 8, // lookups at once, across tenants (the default)
      timeoutMs: 5_000, // the default
      onError: (error, tenant) => log.warn({ error, tenant }, 'stripe secret lookup failed'),
    },
  });
  // #endregion resolver
  return preset;
}

/** The Stripe preset typed by Stripe's SDK: an event name maps to Stripe's own event type. */
export function typedStripe() {
  // #region event-types
  const preset = providers.stripe<StripeEvents>({ secret: process.env.STRIPE_WEBHOOK_SECRET! });
  type Succeeded = EventMap<typeof preset>['payment_intent.succeeded']; // Stripe.PaymentIntentSucceededEvent
  // EventMap<typeof preset>['payment_intent.succeded'] does not compile.
  // #endregion event-types
  const succeeded: Succeeded['type'] = 'payment_intent.succeeded';
  return { preset, succeeded };
}
