/**
 * @module Fixtures of the presets whose provider signs with a private key (Discord, Wise,
 * PayPal, Telnyx) or a token (QStash, Vonage): the test kit signs with a key of the suite's, whose public half the preset is given.
 */
import { createPublicKey } from 'node:crypto';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
// PayPal's signer: a certificate with PayPal's subject, issued by a test CA, and its key (the
// providers' PayPal tests hold the CA and the rest of the set). Served by the preset's injected fetch.
import { SIGNER, SIGNER_KEY } from '../../../providers/test/fixtures/paypal-certificates';
import { HOOK_URL, type PresetFixture } from './fixture';

const url = HOOK_URL;
const discord = () => signers.discord({ url });
const wise = () => signers.wise({ url });
const telnyx = () => signers.telnyx({ url });
const QSTASH_KEY = 'sig_conformance_current_key';
const plaid = signers.plaid({ url, keyId: 'kid-conformance' });
const PAYPAL_WEBHOOK_ID = '8PT597110X687430LKGECATA';

export const keySignedFixtures: readonly PresetFixture[] = [
  {
    name: 'discord',
    preset: () => providers.discord({ publicKey: discord().publicKey }),
    externalId: '1247856129870041118',
    timed: true,
    delivery: () => discord().event({ id: '1247856129870041118', type: 2, data: { name: 'pay' } }),
    handshake: {
      request: () => discord().ping('1247856129870049999'),
      externalId: '1247856129870049999',
      // The PONG as the body, under the PING's own signature headers.
      replay: (answer) => ({
        body: answer,
        headers: { ...discord().ping('1247856129870049999').headers },
      }),
    },
  },
  {
    name: 'wise (a retry carries its own sent_at)',
    preset: () => providers.wise({ publicKey: createPublicKey(wise().publicKey) }),
    externalId: 'wise-delivery-conformance',
    timed: false,
    delivery: () =>
      wise().event(
        {
          data: {
            resource: { id: 49983981, type: 'transfer' },
            current_state: 'outgoing_payment_sent',
          },
          subscription_id: '90aa8e14-4ef1-4a56-861c-f3c9cde097ea',
          event_type: 'transfers#state-change',
          schema_version: '2.0.0',
          sent_at: '2026-12-01T10:00:00Z',
        },
        { deliveryId: 'wise-delivery-conformance' },
      ),
  },
  {
    name: 'paypal',
    preset: () =>
      providers.paypal({ webhookId: PAYPAL_WEBHOOK_ID, fetchCertificate: async () => SIGNER }),
    externalId: 'WH-CONFORMANCE-0000000000000000',
    timed: false,
    delivery: () =>
      signers.paypal({ webhookId: PAYPAL_WEBHOOK_ID, privateKey: SIGNER_KEY, url }).event({
        id: 'WH-CONFORMANCE-0000000000000000',
        event_type: 'PAYMENT.CAPTURE.COMPLETED',
        resource: { id: '42311647XV020574X', amount: { currency_code: 'USD', value: '10.00' } },
      }),
  },
  // Signed tokens and public keys.
  {
    name: 'telnyx',
    preset: () => providers.telnyx({ publicKey: telnyx().publicKey }),
    externalId: 'b301ed3f-1490-491f-995f-6e64e69674d4',
    timed: true,
    delivery: () =>
      telnyx().event({
        data: {
          event_type: 'message.received',
          id: 'b301ed3f-1490-491f-995f-6e64e69674d4',
          occurred_at: '2026-12-06T10:00:00.000+00:00',
          payload: { text: 'hi' },
          record_type: 'event',
        },
        meta: { attempt: 1 },
      }),
  },
  {
    name: 'qstash',
    preset: () => providers.qstash({ signingKey: ['sig_conformance_next_key', QSTASH_KEY], url }),
    externalId: 'msg_conformance_0001',
    timed: true,
    delivery: () =>
      signers
        .qstash({ signingKey: QSTASH_KEY, url })
        .event({ order: 6735, status: 'paid' }, { messageId: 'msg_conformance_0001' }),
  },
  {
    name: 'vonage',
    preset: () => providers.vonage({ signatureSecret: 'vonage-conformance-secret' }),
    externalId: 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001:delivered',
    timed: true,
    delivery: () =>
      signers.vonage({ signatureSecret: 'vonage-conformance-secret', url }).event({
        message_uuid: 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001',
        to: '447700900000',
        from: '447700900001',
        timestamp: '2026-12-06T10:00:00Z',
        status: 'delivered',
        channel: 'sms',
      }),
  },
  {
    name: 'plaid',
    preset: () => providers.plaid({ fetchKey: plaid.fetchKey }),
    externalId:
      'TRANSACTIONS:SYNC_UPDATES_AVAILABLE:' +
      '1efc7f4a2e8f713ddad0c5eda4c916a3f3b668f367bc5d0c16a4cbaf99b7e1ae',
    timed: true,
    delivery: () =>
      plaid.event({
        webhook_type: 'TRANSACTIONS',
        webhook_code: 'SYNC_UPDATES_AVAILABLE',
        item_id: 'wz666MBjYWTp2PDzzggYhM6oWWmBb',
        initial_update_complete: true,
        historical_update_complete: false,
        environment: 'sandbox',
      }),
  },
];
