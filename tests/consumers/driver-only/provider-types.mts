// Compiled (strict, `skipLibCheck: false`) by tests/consumers/packed-tarballs.test.ts in the app
// the README's Install section makes, which installed no provider SDK: every preset still
// compiles, with several secrets or a resolver, and its event map is the preset's own minimal type.
import * as providers from '@webhook-idempotency/providers';
import type { EventMap, StripeMinimalEvent } from '@webhook-idempotency/providers';

const stripe = providers.stripe({ secret: ['whsec_new', 'whsec_old'] });
export const minimal: StripeMinimalEvent = {} as EventMap<typeof stripe>['any.name'];
export const perCustomer = providers.shopify({
  resolveSecret: {
    tenant: (request) => request.headers['x-shopify-shop-domain'] as string | undefined,
    secrets: async (shop) => (shop === 'a.myshopify.com' ? 'secret' : undefined),
    cache: { max: 100, ttlMs: 60_000 },
  },
});
export const pairs = providers.postmark({
  credentials: [
    { username: 'hook', password: 'new' },
    { username: 'hook', password: 'old' },
  ],
});
// @ts-expect-error fixed secrets and a resolver are one or the other
export const both = providers.github({ secret: 'x', resolveSecret: { secrets: () => 'x' } });
