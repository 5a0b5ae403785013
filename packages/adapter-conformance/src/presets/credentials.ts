/**
 * @module Fixtures of the presets whose provider sends a static credential instead of a
 * signature (Telegram's and GitLab's secret tokens; HTTP Basic for Postmark, Payme and Uzum
 * Bank), and Click's form signed with an MD5 `sign_string`. Payme and Click answer a forged
 * request 200 with their protocol's error, as their providers expect.
 */
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { HOOK_URL, type PresetFixture } from './fixture';
import { secretFixtures } from './secret-rows';

const url = HOOK_URL;
const googleCalendar = () =>
  signers.googleCalendar({
    token: 'conformance-channel-token',
    channelId: 'conformance-channel',
    url,
  });

export const credentialFixtures: readonly PresetFixture[] = [
  ...secretFixtures(
    {
      telegram: {
        id: '7001:918273645',
        option: 'secretToken',
        secret: 'conformance-token',
        preset: { botId: 7001 },
        event: [{ update_id: 918273645, message: { text: '/start' } }],
      },
      gitlab: {
        id: 'gitlab-idem-conformance',
        option: 'secretToken',
        secret: 'conformance-gitlab-token',
        event: [
          { object_kind: 'push', ref: 'refs/heads/main' },
          { idempotencyKey: 'gitlab-idem-conformance' },
        ],
      },
    },
    false,
  ),
  ...secretFixtures(
    {
      postmark: {
        id: 'Delivery:883953f4-6105-42a2-a16a-77a8eac79483:john@example.com',
        credentials: { username: 'postmark', password: 'conformance password' },
        event: [
          {
            RecordType: 'Delivery',
            MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
            Recipient: 'john@example.com',
          },
        ],
      },
    },
    false,
  ),
  {
    name: 'payme (JSON-RPC over Basic auth; a forged call is answered 200 with error -32504)',
    preset: () => providers.payme({ password: 'conformance-cash-desk-key' }),
    externalId: 'CreateTransaction:5e730e8e0b852a417aa49ceb',
    forgedStatus: 200,
    // The JSON-RPC answer to the call's id: a replay answers the retry's id, here the same one.
    answer: {
      kind: 'json',
      value: { result: { create_time: 1733306400000, transaction: '42', state: 1 }, id: 2026 },
    },
    timed: false,
    delivery: () =>
      signers.payme({ password: 'conformance-cash-desk-key', url }).rpc(
        'CreateTransaction',
        {
          id: '5e730e8e0b852a417aa49ceb',
          time: 1733306400000,
          amount: 500000,
          account: { order: '42' },
        },
        { id: 2026 },
      ),
  },
  {
    name: 'click (a form signed with sign_string; a forged one is answered 200 with error -1)',
    preset: () => providers.click({ secretKey: 'conformance-click-secret' }),
    externalId: '2263123456:0',
    forgedStatus: 200,
    timed: false,
    delivery: () =>
      signers.click({ secretKey: 'conformance-click-secret', url }).prepare({
        click_trans_id: '2263123456',
        service_id: '498',
        click_paydoc_id: '1946296773',
        merchant_trans_id: 'order-42',
        amount: '1000.00',
      }),
  },
  {
    name: 'uzum (the operation is the last path segment; a retry carries its own timestamp)',
    preset: () =>
      providers.uzum({ username: 'conformance', password: 'conformance-uzum-password' }),
    externalId: '498:9b7c5e64-0000-4e4c-8000-conformance:create',
    timed: false,
    delivery: () =>
      signers.uzum({ username: 'conformance', password: 'conformance-uzum-password', url }).create({
        serviceId: 498,
        transId: '9b7c5e64-0000-4e4c-8000-conformance',
        params: { account: '42' },
        amount: 500000,
      }),
  },
  ...secretFixtures(
    {
      chargebee: {
        id: 'ev_conformance_chargebee',
        credentials: { username: 'chargebee', password: 'conformance password' },
        event: [
          {
            id: 'ev_conformance_chargebee',
            event_type: 'subscription_created',
            content: { subscription: { id: 'sub_42' } },
          },
        ],
      },
    },
    false,
  ),
  {
    name: 'google-calendar (an empty body; the sync message answered by the preset)',
    preset: () => providers.googleCalendar({ token: 'conformance-channel-token' }),
    externalId: 'conformance-channel:4242',
    timed: false,
    delivery: () => googleCalendar().event({ messageNumber: 4242 }),
    handshake: {
      request: () => googleCalendar().sync(),
      externalId: 'conformance-channel:1',
      replay: (answer) => ({
        body: answer,
        headers: { 'x-goog-channel-token': answer, 'x-goog-channel-id': 'conformance-channel' },
      }),
    },
  },
];
