/**
 * The event maps: a preset given its provider's SDK types names each event with the SDK's own
 * type, and a misspelt event name or field fails to compile (the `@ts-expect-error` lines are
 * checked by `tsc`: an unused one is an error); without them, the preset's minimal type. And
 * `eventType(request)` reads the name of each provider's delivery.
 */
import type { WebhookEvent } from '@clerk/backend';
import type { components } from '@octokit/openapi-webhooks-types';
import type { APIApplicationCommandInteraction } from 'discord-api-types/v10';
import type Stripe from 'stripe';
import * as providers from '@webhook-idempotency/providers';
import type { EventMap, EventOf, StripeMinimalEvent } from '@webhook-idempotency/providers';
import type { webhook } from '@line/bot-sdk';
import type { ClerkEvents } from '../../src/types/clerk';
import type { LineEvents } from '../../src/types/line';
import type { Event as GoCardlessEvent } from 'gocardless-nodejs/types';
import type { GoCardlessEvents } from '../../src/types/gocardless';
import type { ChangeNotification } from '@microsoft/microsoft-graph-types';
import type { MicrosoftGraphEvents } from '../../src/types/microsoft-graph';
import type { StorageBlobCreatedEventData } from '@azure/eventgrid';
import type {
  AzureEventGridCloudEvents,
  AzureEventGridEvents,
} from '../../src/types/azure-event-grid';
import type { SubscriptionCreatedContent } from 'chargebee';
import type { ChargebeeEvents } from '../../src/types/chargebee';
import type { DiscordEvents } from '../../src/types/discord';
import type { GitHubEvents } from '../../src/types/github';
import type { OpenAIEvents } from '../../src/types/openai';
import type { DodoPaymentsEvents } from '../../src/types/dodopayments';
import type { PolarEvents } from '../../src/types/polar';
import type { ReplicateEvents } from '../../src/types/replicate';
import type { ResendEvents } from '../../src/types/resend';
import type { SlackEvents } from '../../src/types/slack';
import type { StripeEvents } from '../../src/types/stripe';
import type { TelnyxEvents } from '../../src/types/telnyx';
import { SIGNERS } from '../secrets/signers';

/** `true` only when A and B are the same type. */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>) => proof;

const stripe = providers.stripe<StripeEvents>({ secret: 'whsec_x' });
type StripeMap = EventMap<typeof stripe>;
same<StripeMap['payment_intent.succeeded'], Stripe.PaymentIntentSucceededEvent>(true);
same<EventOf<typeof stripe>, Stripe.Event>(true);
// @ts-expect-error a misspelt Stripe event name is not in the map
export type Misspelt = StripeMap['payment_intent.succeded'];
export const readsAmount = (event: StripeMap['payment_intent.succeeded']) =>
  event.data.object.amount;
// @ts-expect-error a misspelt field of Stripe's own type
export const misspeltField = (event: StripeMap['payment_intent.succeeded']) => event.data.objct;

const line = providers.line<LineEvents>({ channelSecret: 'x' });
same<EventMap<typeof line>['follow'], webhook.FollowEvent>(true);

const gocardless = providers.gocardless<GoCardlessEvents>({ secret: 'x' });
export const gocardlessAction = (event: EventMap<typeof gocardless>['payments']) =>
  event.action satisfies GoCardlessEvent['action'];
// @ts-expect-error GoCardless has no resource type 'payment' (it is 'payments')
export const misspeltResource = (event: EventMap<typeof gocardless>['payment']) => event;

const graph = providers.microsoftGraph<MicrosoftGraphEvents>({ clientState: 'x' });
type GraphMap = EventMap<typeof graph>;
same<
  keyof GraphMap,
  'created' | 'updated' | 'deleted' | 'missed' | 'subscriptionRemoved' | 'reauthorizationRequired'
>(true);
same<GraphMap['updated']['changeType'], 'updated'>(true);
same<GraphMap['reauthorizationRequired']['lifecycleEvent'], 'reauthorizationRequired'>(true);
export const graphTenant = (n: GraphMap['created']) =>
  n.tenantId satisfies ChangeNotification['tenantId'];
export const graphResourceId = (n: GraphMap['created']) => n.resourceData?.id;
// @ts-expect-error Graph's change type is updated, not update
export type GraphMisspelt = GraphMap['update'];

const grid = providers.azureEventGrid<AzureEventGridEvents>({ secret: 'x' });
type GridMap = EventMap<typeof grid>;
same<GridMap['Microsoft.Storage.BlobCreated']['data'], StorageBlobCreatedEventData>(true);
same<GridMap['Microsoft.Storage.BlobCreated']['eventTime'], string>(true);
// Key Vault's data is `Id`, `VaultName`… in the body, `id`, `vaultName`… in the SDK's model: not vouched for.
same<GridMap['Microsoft.KeyVault.SecretNearExpiry']['data'], unknown>(true);
// @ts-expect-error Event Grid names it Microsoft.Storage.BlobCreated
export type GridMisspelt = GridMap['Microsoft.Storage.BlobCreate'];
type CloudMap = EventMap<ReturnType<typeof providers.azureEventGrid<AzureEventGridCloudEvents>>>;
same<CloudMap['Microsoft.Storage.BlobDeleted']['type'], 'Microsoft.Storage.BlobDeleted'>(true);
same<CloudMap['Microsoft.Storage.BlobDeleted']['time'], string | undefined>(true);

const chargebee = providers.chargebee<ChargebeeEvents>({ username: 'u', password: 'p' });
type ChargebeeMap = EventMap<typeof chargebee>;
same<ChargebeeMap['subscription_created']['event_type'], 'subscription_created'>(true);
same<ChargebeeMap['subscription_created']['content'], SubscriptionCreatedContent>(true);
/** The names whose `event_type` cannot be theirs (`never`): none. */
type Unnamed = {
  [Name in keyof ChargebeeMap]: [ChargebeeMap[Name]['event_type']] extends [never] ? Name : never;
}[keyof ChargebeeMap];
same<Unnamed, never>(true);
// @ts-expect-error Chargebee names it subscription_created, not subscription_create
export type ChargebeeMisspelt = ChargebeeMap['subscription_create'];

const github = providers.github<GitHubEvents>({ secret: 'x' });
same<EventMap<typeof github>['push'], components['schemas']['webhook-push']>(true);
same<
  Extract<EventMap<typeof github>['pull_request'], { action: 'opened' }>,
  components['schemas']['webhook-pull-request-opened']
>(true);
// @ts-expect-error GitHub names the event pull_request, not pull-request
export type GitHubMisspelt = EventMap<typeof github>['pull-request'];

same<ClerkEvents['user.deleted'], Extract<WebhookEvent, { type: 'user.deleted' }>>(true);
same<ClerkEvents['user.updated']['type'], 'user.updated'>(true);
same<DiscordEvents['APPLICATION_COMMAND'], APIApplicationCommandInteraction>(true);
export type SlackText = SlackEvents['app_mention']['event']['text'];
export type ResendData = ResendEvents['email.delivered']['data'];
// @ts-expect-error Resend has no email.delivred event
export type ResendMisspelt = ResendEvents['email.delivred'];
same<OpenAIEvents['response.completed']['type'], 'response.completed'>(true);
export type OpenAIResponseId = OpenAIEvents['response.completed']['data']['id'];
// @ts-expect-error OpenAI has no response.complete event
export type OpenAIMisspelt = OpenAIEvents['response.complete'];
same<ReplicateEvents['succeeded']['status'], 'succeeded'>(true);
// @ts-expect-error a prediction's status is succeeded, not success
export type ReplicateMisspelt = ReplicateEvents['success'];
same<PolarEvents['order.paid']['type'], 'order.paid'>(true);
// @ts-expect-error Polar names it order.paid, not order.payed
export type PolarMisspelt = PolarEvents['order.payed'];
same<DodoPaymentsEvents['payment.succeeded']['type'], 'payment.succeeded'>(true);
// @ts-expect-error Dodo Payments names it payment.succeeded
export type DodoMisspelt = DodoPaymentsEvents['payment.success'];
const stytch = providers.stytch({ secret: 'whsec_c2VjcmV0' });
same<EventMap<typeof stytch>['direct.user.create'], providers.StytchMinimalEvent>(true);

const telnyx = providers.telnyx<TelnyxEvents>({
  publicKey: Buffer.alloc(32, 1).toString('base64'),
});
export type TelnyxText = NonNullable<
  NonNullable<EventMap<typeof telnyx>['message.received']['data']>['payload']
>['text'];
// @ts-expect-error Telnyx names it message.received, not message.recieved
export type TelnyxMisspelt = EventMap<typeof telnyx>['message.recieved'];

// Without the SDK's types: the preset's own minimal type, any name.
const plain = providers.stripe({ secret: 'whsec_x' });
same<EventMap<typeof plain>['anything'], StripeMinimalEvent>(true);

describe('eventType', () => {
  const expected: Record<string, string | undefined> = {
    stripe: 'payment_intent.succeeded',
    github: 'ping',
    shopify: 'orders/create', // the kit sends the topic header Shopify sends
    standardWebhooks: 'user.created',
    clerk: 'user.created',
    resend: 'user.created',
    supabaseAuthHooks: undefined,
    dodopayments: 'user.created',
    polar: 'user.created',
    stytch: undefined,
    replicate: undefined,
    openai: 'user.created',
    slack: 'app_mention',
    paddle: 'transaction.completed',
    razorpay: 'payment.captured',
    discord: 'APPLICATION_COMMAND',
    hmac: undefined,
    twitch: 'channel.follow',
    gitlab: 'push',
    square: 'payment.created',
    typeform: 'form_response',
    checkout: 'payment_approved',
    vercel: 'deployment.created',
    intercom: 'ping',
    wise: 'transfers#state-change',
    paypal: 'PAYMENT.CAPTURE.COMPLETED',
    coinbase: 'charge:confirmed',
    lemonsqueezy: 'order_created',
    airwallex: 'payment_intent.succeeded',
    paystack: 'charge.success',
    calendly: 'invitee.created',
    sentry: 'issue', // Sentry-Hook-Resource, as the kit sends it
    bitbucket: 'repo:push', // X-Event-Key, as the kit sends it
    postmark: 'Bounce',
    twilio: undefined,
    linear: 'Issue',
    mercadopago: 'payment',
    zoom: 'meeting.started',
    braintree: 'check',
    mailgun: 'delivered',
    sendgrid: undefined,
    hubspot: undefined,
    adyen: undefined,
    meta: undefined,
    line: undefined,
    notion: 'page.created',
    gocardless: undefined,
    viber: 'message',
    payme: 'CreateTransaction',
    click: 'prepare',
    uzum: 'create',
    telegram: 'message',
    telnyx: 'message.received',
    qstash: undefined,
    vonage: 'delivered',
    plaid: 'TRANSACTIONS.SYNC_UPDATES_AVAILABLE',
    chargebee: 'subscription_created',
    auth0: undefined,
    okta: undefined,
    microsoftGraph: undefined,
    azureEventGrid: undefined,
    googleCalendar: 'exists',
    woocommerce: 'order.updated', // X-WC-Webhook-Topic, as the kit sends it
    workos: 'user.created',
    elevenlabs: 'post_call_transcription',
    sanity: undefined,
    mux: 'video.asset.ready',
    webflow: 'form_submission',
    revolut: 'ORDER_COMPLETED',
    persona: 'inquiry.completed',
    recurly: 'subscription.created',
    cloudinary: 'upload',
    dropboxSign: 'signature_request_signed',
    tbank: 'CONFIRMED',
    robokassa: 'result',
    mandrill: undefined,
    pagerduty: 'incident.triggered',
  };

  it.each(Object.keys(SIGNERS))('reads the event name of a %s delivery', (name) => {
    const signer = SIGNERS[name]!;
    const preset = signer.build({ fixed: [signer.secrets[0]] });
    expect(preset.eventType(signer.sign(signer.secrets[0]))).toBe(expected[name]);
  });

  it.each([
    ['sendgrid', 'delivered'],
    ['hubspot', 'contact.creation'],
    ['adyen', 'AUTHORISATION'],
    ['meta', 'messaging'],
    ['auth0', 's'],
    ['okta', 'user.session.start'],
    ['microsoftGraph', 'updated'],
    ['azureEventGrid', 'Microsoft.Storage.BlobCreated'],
    ['line', 'follow'],
    ['gocardless', 'payments'],
  ])('reads the event name of each item of a %s batch', (name, type) => {
    const signer = SIGNERS[name]!;
    const preset = signer.build({ fixed: [signer.secrets[0]] });
    const [item] = preset.items?.(signer.sign(signer.secrets[0])) ?? [];
    expect(preset.itemType?.(item?.value)).toBe(type);
  });

  it('names nothing for a body it cannot read, and never throws', () => {
    const preset = providers.stripe({ secret: 'whsec_x' });
    const garbled = {
      method: 'POST',
      url: '/',
      headers: {},
      rawBody: Buffer.from('{'),
      body: undefined,
      native: {},
    };
    expect(preset.eventType(garbled)).toBeUndefined();
  });
});
