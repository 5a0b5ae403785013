/**
 * @module Fixtures of the presets whose provider signs a time with the body (Stripe, Slack,
 * Paddle, Calendly, Airwallex, Standard Webhooks and its senders Clerk and Resend, Linear's
 * `webhookTimestamp`, Mailgun's signature block): a retry is signed anew at its own time.
 */
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';

const url = HOOK_URL;
/** Svix / Standard Webhooks: `whsec_` and the base64 of the key. */
const WHSEC = `whsec_${Buffer.from('conformance-svix-secret-32-bytes').toString('base64')}`;
const svixEvent = { type: 'user.created', data: { id: 'user_conformance' } };

export const timestampedFixtures: readonly PresetFixture[] = [
  {
    name: 'stripe',
    preset: () => providers.stripe({ secret: 'whsec_conformance_stripe' }),
    externalId: 'evt_1Pconformance',
    timed: true,
    delivery: () =>
      signers
        .stripe({ secret: 'whsec_conformance_stripe', url })
        .event({ id: 'evt_1Pconformance', type: 'payment_intent.succeeded' }),
  },
  {
    name: 'slack (a retry carries X-Slack-Retry-Num)',
    preset: () => providers.slack({ signingSecret: 'conformance slack signing secret' }),
    externalId: 'A0CONFORM:Ev0CONFORM',
    timed: true,
    delivery: () =>
      signers.slack({ signingSecret: 'conformance slack signing secret', url }).event({
        type: 'event_callback',
        api_app_id: 'A0CONFORM',
        event_id: 'Ev0CONFORM',
        event: { type: 'app_mention', text: 'hi' },
      }),
  },
  {
    name: 'paddle',
    preset: () => providers.paddle({ secret: 'pdl_ntfset_conformance' }),
    externalId: 'evt_01conformance',
    timed: true,
    delivery: () =>
      signers
        .paddle({ secret: 'pdl_ntfset_conformance', url })
        .event({ event_id: 'evt_01conformance', event_type: 'transaction.paid' }),
  },
  {
    name: 'calendly',
    preset: () => providers.calendly({ signingKey: 'conformance calendly key' }),
    externalId:
      'invitee.created:https://api.calendly.com/scheduled_events/CONFORMANCE/invitees/ONE',
    timed: true,
    delivery: () =>
      signers.calendly({ signingKey: 'conformance calendly key', url }).event({
        event: 'invitee.created',
        payload: { uri: 'https://api.calendly.com/scheduled_events/CONFORMANCE/invitees/ONE' },
      }),
  },
  {
    name: 'airwallex',
    preset: () =>
      providers.airwallex({ secret: 'conformance airwallex secret', toleranceSeconds: 300 }),
    externalId: 'awx-evt-conformance',
    timed: true,
    delivery: () =>
      signers
        .airwallex({ secret: 'conformance airwallex secret', url })
        .event({ id: 'awx-evt-conformance', name: 'payment_intent.succeeded' }),
  },
  ...(
    [
      ['standardWebhooks', providers.standardWebhooks, signers.standardWebhooks],
      ['clerk', providers.clerk, signers.clerk],
      ['resend', providers.resend, signers.resend],
    ] as const
  ).map(
    ([name, preset, signer]): PresetFixture => ({
      name,
      preset: () => preset({ secret: WHSEC }),
      externalId: 'msg_conformance1',
      timed: true,
      delivery: () => signer({ secret: WHSEC, url }).event(svixEvent, { id: 'msg_conformance1' }),
    }),
  ),
  {
    name: 'linear (webhookTimestamp in the body, set anew on a retry)',
    preset: () => providers.linear({ secret: 'conformance linear secret' }),
    externalId: 'linear-delivery-conformance',
    timed: true,
    delivery: () =>
      signers
        .linear({ secret: 'conformance linear secret', url })
        .event(
          { action: 'create', type: 'Issue', data: { id: 'lin-issue-1' } },
          { delivery: 'linear-delivery-conformance' },
        ),
  },
  {
    name: 'mailgun (the signature block in the body, signed anew on a retry)',
    preset: () =>
      providers.mailgun({ signingKey: 'conformance mailgun signing key', toleranceSeconds: 300 }),
    externalId: 'mg-event-conformance',
    timed: true,
    delivery: () =>
      signers
        .mailgun({ signingKey: 'conformance mailgun signing key', url })
        .event({ id: 'mg-event-conformance', event: 'delivered' }),
  },
];
