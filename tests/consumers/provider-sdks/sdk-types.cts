// Compiled (strict, `skipLibCheck: false`, nodenext) by tests/consumers/packed-tarballs.test.ts in
// a consumer that installed `stripe` and `@octokit/openapi-webhooks-types` beside our tarballs: a
// preset given its provider's SDK types names each event with the SDK's own type, and a misspelt
// event name or field fails to compile (an unused `@ts-expect-error` fails the build).
import * as providers from '@webhook-idempotency/providers';
import type { EventMap } from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import type { components } from '@octokit/openapi-webhooks-types';
import type Stripe from 'stripe';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const stripe = providers.stripe<StripeEvents>({ secret: ['whsec_new', 'whsec_old'] });
type StripeMap = EventMap<typeof stripe>;
export const stripeOwn: Equal<
  StripeMap['payment_intent.succeeded'],
  Stripe.PaymentIntentSucceededEvent
> = true;
// @ts-expect-error a misspelt Stripe event name is not in the map
export type StripeMisspelt = StripeMap['payment_intent.succeded'];
// @ts-expect-error a misspelt field of Stripe's own type
export const misspeltField = (event: StripeMap['payment_intent.succeeded']) => event.data.objct;

const github = providers.github<GitHubEvents>({
  resolveSecret: {
    tenant: (request) => request.url.split('/')[3],
    secrets: async (tenant) => (tenant === 'acme' ? ['new', 'old'] : undefined),
  },
});
type GitHubMap = EventMap<typeof github>;
export const githubOwn: Equal<GitHubMap['push'], components['schemas']['webhook-push']> = true;
// @ts-expect-error GitHub's event is pull_request, not pull-request
export type GitHubMisspelt = GitHubMap['pull-request'];
export const name: string | undefined = stripe.eventType({
  method: 'POST',
  url: '/',
  headers: {},
  rawBody: Buffer.from('{"type":"charge.succeeded"}'),
  body: undefined,
  native: {},
});
