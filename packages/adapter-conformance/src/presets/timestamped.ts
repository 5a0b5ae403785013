/**
 * @module Fixtures of the presets whose provider signs a time with the body (Stripe, Slack,
 * Paddle, Calendly, Airwallex, Standard Webhooks and its senders Clerk and Resend, Linear's
 * `webhookTimestamp`, Mailgun's signature block): a retry is signed anew at its own time.
 */
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';
import { secretFixtures } from './secret-rows';

const url = HOOK_URL;
/** Svix / Standard Webhooks: `whsec_` and the base64 of the key. */
const WHSEC = `whsec_${Buffer.from('conformance-svix-secret-32-bytes').toString('base64')}`;
const svixEvent = { type: 'user.created', data: { id: 'user_conformance' } };

export const timestampedFixtures: readonly PresetFixture[] = [
  ...secretFixtures(
    {
      stripe: {
        id: 'evt_1Pconformance',
        secret: 'whsec_conformance_stripe',
        event: [{ id: 'evt_1Pconformance', type: 'payment_intent.succeeded' }],
      },
      slack: {
        id: 'A0CONFORM:Ev0CONFORM',
        option: 'signingSecret',
        note: 'a retry carries X-Slack-Retry-Num',
        event: [
          {
            type: 'event_callback',
            api_app_id: 'A0CONFORM',
            event_id: 'Ev0CONFORM',
            event: { type: 'app_mention', text: 'hi' },
          },
        ],
      },
      paddle: {
        id: 'evt_01conformance',
        secret: 'pdl_ntfset_conformance',
        event: [{ event_id: 'evt_01conformance', event_type: 'transaction.paid' }],
      },
      calendly: {
        id: 'invitee.created:https://api.calendly.com/scheduled_events/CONFORMANCE/invitees/ONE',
        option: 'signingKey',
        event: [
          {
            event: 'invitee.created',
            payload: { uri: 'https://api.calendly.com/scheduled_events/CONFORMANCE/invitees/ONE' },
          },
        ],
      },
      airwallex: {
        id: 'awx-evt-conformance',
        preset: { toleranceSeconds: 300 },
        event: [{ id: 'awx-evt-conformance', name: 'payment_intent.succeeded' }],
      },
      linear: {
        id: 'linear-delivery-conformance',
        note: 'webhookTimestamp in the body, set anew on a retry',
        event: [
          { action: 'create', type: 'Issue', data: { id: 'lin-issue-1' } },
          { delivery: 'linear-delivery-conformance' },
        ],
      },
      mailgun: {
        id: 'mg-event-conformance',
        option: 'signingKey',
        preset: { toleranceSeconds: 300 },
        note: 'the signature block in the body, signed anew on a retry',
        event: [{ id: 'mg-event-conformance', event: 'delivered' }],
      },
      workos: {
        id: 'event_01CONFORMANCE',
        event: [{ id: 'event_01CONFORMANCE', event: 'user.created', data: { id: 'user_01' } }],
      },
      elevenlabs: {
        id: 'post_call_transcription:conv_conformance',
        event: [
          {
            type: 'post_call_transcription',
            event_timestamp: 1_796_112_000,
            data: { agent_id: 'agent_1', conversation_id: 'conv_conformance' },
          },
        ],
      },
      sanity: {
        id: 'tx_conformance:movie_conformance',
        event: [
          { _id: 'movie_conformance', _type: 'movie' },
          { transaction: 'tx_conformance', document: 'movie_conformance' },
        ],
      },
      mux: {
        id: 'mux-event-conformance',
        event: [{ id: 'mux-event-conformance', type: 'video.asset.ready', data: { id: 'a1' } }],
      },
      webflow: {
        id: 'form_submission:webflow-conformance',
        event: [{ triggerType: 'form_submission', payload: { id: 'webflow-conformance' } }],
      },
      recurly: {
        id: 'recurly-conformance',
        event: [{ id: 'recurly-conformance', object_type: 'account', event_type: 'created' }],
      },
      revolut: {
        id: 'ORDER_COMPLETED:revolut-order-conformance',
        option: 'signingSecret',
        event: [{ event: 'ORDER_COMPLETED', order_id: 'revolut-order-conformance' }],
      },
      persona: {
        id: 'evt_persona_conformance',
        event: [
          {
            data: {
              type: 'event',
              id: 'evt_persona_conformance',
              attributes: { name: 'inquiry.completed', payload: { data: { id: 'inq_1' } } },
            },
          },
        ],
      },
    },
    true,
  ),
  ...(
    [
      ['standardWebhooks', providers.standardWebhooks, signers.standardWebhooks],
      ['clerk', providers.clerk, signers.clerk],
      ['resend', providers.resend, signers.resend],
      ['openai', providers.openai, signers.openai],
      ['replicate', providers.replicate, signers.replicate],
      ['stytch', providers.stytch, signers.stytch],
      ['polar', providers.polar, signers.polar],
      ['dodopayments', providers.dodopayments, signers.dodopayments],
      ['supabaseAuthHooks', providers.supabaseAuthHooks, signers.supabaseAuthHooks],
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
];
