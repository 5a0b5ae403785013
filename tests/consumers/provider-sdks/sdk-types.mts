// Compiled (strict, `skipLibCheck: false`, nodenext) by tests/consumers/packed-tarballs.test.ts in
// a consumer that installed `stripe`, `@octokit/openapi-webhooks-types`,
// `@microsoft/microsoft-graph-types`, `@azure/eventgrid` and `chargebee` beside our tarballs: a
// preset given its provider's SDK types names each event with the SDK's own type, and a misspelt
// event name or field fails to compile (an unused `@ts-expect-error` fails the build).
import * as providers from '@webhook-idempotency/providers';
import type { EventMap } from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';
import type { MicrosoftGraphEvents } from '@webhook-idempotency/providers/types/microsoft-graph';
import type { AzureEventGridEvents } from '@webhook-idempotency/providers/types/azure-event-grid';
import type { ChargebeeEvents } from '@webhook-idempotency/providers/types/chargebee';
import type { components } from '@octokit/openapi-webhooks-types';
import type { StorageBlobCreatedEventData } from '@azure/eventgrid';
import type { SubscriptionCreatedContent } from 'chargebee';
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
const graph = providers.microsoftGraph<MicrosoftGraphEvents>({ clientState: 'x' });
type GraphMap = EventMap<typeof graph>;
export const graphOwn: Equal<GraphMap['updated']['changeType'], 'updated'> = true;
export const graphResource = (n: GraphMap['created']) => n.resourceData?.id;
// @ts-expect-error Graph's change type is updated, not update
export type GraphMisspelt = GraphMap['update'];

const grid = providers.azureEventGrid<AzureEventGridEvents>({ secret: 'x' });
type GridMap = EventMap<typeof grid>;
export const gridOwn: Equal<
  GridMap['Microsoft.Storage.BlobCreated']['data'],
  StorageBlobCreatedEventData
> = true;
// @ts-expect-error Event Grid names it Microsoft.Storage.BlobCreated
export type GridMisspelt = GridMap['Microsoft.Storage.BlobCreate'];

const chargebee = providers.chargebee<ChargebeeEvents>({ username: 'u', password: 'p' });
type ChargebeeMap = EventMap<typeof chargebee>;
export const chargebeeOwn: Equal<
  ChargebeeMap['subscription_created']['content'],
  SubscriptionCreatedContent
> = true;
// @ts-expect-error Chargebee names it subscription_created, not subscription_create
export type ChargebeeMisspelt = ChargebeeMap['subscription_create'];

export const name: string | undefined = stripe.eventType({
  method: 'POST',
  url: '/',
  headers: {},
  rawBody: Buffer.from('{"type":"charge.succeeded"}'),
  body: undefined,
  native: {},
});
