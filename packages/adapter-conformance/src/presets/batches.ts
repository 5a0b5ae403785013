/**
 * @module One genuine batch per batched preset (SendGrid, HubSpot, Adyen, Meta, LINE), signed by the
 * test kit, with a re-batch that repeats one item beside a new one, and Meta's verification GET:
 * what the batch cases send through every adapter.
 */
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import type { Answer } from '../types';
import { type BatchFixture, HOOK_URL } from './fixture';

const url = HOOK_URL;
const sendgrid = () => signers.sendgrid({ url });
const sendgridEvents = (ids: readonly string[]) =>
  ids.map((sg_event_id) => ({ sg_event_id, event: 'delivered', email: 'a@example.com' }));

const HUBSPOT_SECRET = 'conformance hubspot secret';
const hubspot = () => signers.hubspot({ clientSecret: HUBSPOT_SECRET, targetUrl: url });
const hubspotEvents = (events: readonly [eventId: number, attemptNumber: number][]) =>
  events.map(([eventId, attemptNumber]) => ({
    eventId,
    subscriptionId: 20,
    portalId: 10,
    occurredAt: 1_764_000_000_000,
    subscriptionType: 'contact.creation',
    attemptNumber,
    objectId: 123,
  }));

const ADYEN_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const adyen = () => signers.adyen({ hmacKey: ADYEN_KEY, url });
const adyenItems = (items: readonly [pspReference: string, eventCode: string][]) =>
  items.map(([pspReference, eventCode]) => ({
    pspReference,
    merchantAccountCode: 'ConformanceECOM',
    merchantReference: 'order-1',
    amount: { value: 1000, currency: 'EUR' },
    eventCode,
    success: 'true',
  }));

const META_SECRET = 'conformance meta secret';
const meta = () => signers.meta({ appSecret: META_SECRET, verifyToken: 'conformance-token', url });
const metaChanges = (ids: readonly string[]) =>
  ids.map((id) => ({
    field: 'messages',
    value: { messages: [{ id, from: '1555', type: 'text', text: { body: 'hi' } }] },
  }));

const LINE_SECRET = 'conformance line channel secret';
const line = () => signers.line({ channelSecret: LINE_SECRET, url });
const lineEvents = (ids: readonly [webhookEventId: string, isRedelivery: boolean][]) =>
  ids.map(([webhookEventId, isRedelivery]) => ({
    type: 'message',
    mode: 'active',
    timestamp: 1_764_626_400_000,
    source: { type: 'user', userId: 'U4af4980629' },
    webhookEventId,
    deliveryContext: { isRedelivery },
    message: { type: 'text', id: webhookEventId, text: 'hi' },
  }));

const accepted: Answer = {
  kind: 'text',
  headers: { 'content-type': 'text/plain' },
  value: '[accepted]',
};
const received: Answer = { kind: 'json', value: { received: true } };

export const batchFixtures: readonly BatchFixture[] = [
  {
    name: 'sendgrid',
    preset: () => providers.sendgrid({ publicKey: sendgrid().publicKey }),
    itemIds: ['sg-evt-1', 'sg-evt-2'],
    newItemId: 'sg-evt-3',
    delivery: () => sendgrid().batch(sendgridEvents(['sg-evt-1', 'sg-evt-2'])),
    rebatched: () => sendgrid().batch(sendgridEvents(['sg-evt-2', 'sg-evt-3'])),
    answer: received,
  },
  {
    name: 'hubspot (a retry raises each attemptNumber)',
    preset: () => providers.hubspot({ clientSecret: HUBSPOT_SECRET, targetUrl: url }),
    itemIds: ['10:20:1', '10:20:2'],
    newItemId: '10:20:3',
    delivery: () =>
      hubspot().batch(
        hubspotEvents([
          [1, 0],
          [2, 0],
        ]),
      ),
    rebatched: () =>
      hubspot().batch(
        hubspotEvents([
          [2, 1],
          [3, 0],
        ]),
      ),
    answer: received,
  },
  {
    name: 'adyen',
    preset: () => providers.adyen({ hmacKey: ADYEN_KEY }),
    itemIds: ['1000000000000001:AUTHORISATION:true', '1000000000000002:CAPTURE:true'],
    newItemId: '1000000000000003:REFUND:true',
    delivery: () =>
      adyen().batch(
        adyenItems([
          ['1000000000000001', 'AUTHORISATION'],
          ['1000000000000002', 'CAPTURE'],
        ]),
      ),
    rebatched: () =>
      adyen().batch(
        adyenItems([
          ['1000000000000002', 'CAPTURE'],
          ['1000000000000003', 'REFUND'],
        ]),
      ),
    answer: accepted,
  },
  {
    name: 'meta',
    preset: () => providers.meta({ appSecret: META_SECRET, verifyToken: 'conformance-token' }),
    itemIds: ['wamid.conformance.1', 'wamid.conformance.2'],
    newItemId: 'wamid.conformance.3',
    delivery: () =>
      meta().batch(metaChanges(['wamid.conformance.1', 'wamid.conformance.2']), {
        entryId: 'waba-1',
      }),
    rebatched: () =>
      meta().batch(metaChanges(['wamid.conformance.2', 'wamid.conformance.3']), {
        entryId: 'waba-1',
      }),
    answer: { kind: 'text', value: 'EVENT_RECEIVED' },
    handshake: {
      request: () => meta().challenge('1158201444'),
      forgedStatus: 403,
      replay: (answer) => ({
        body: answer,
        headers: { 'x-hub-signature-256': `sha256=${answer}` },
      }),
    },
  },
  {
    name: 'line (a redelivered event is marked isRedelivery)',
    preset: () => providers.line({ channelSecret: LINE_SECRET }),
    itemIds: ['01KCONFORMANCE000000000001', '01KCONFORMANCE000000000002'],
    newItemId: '01KCONFORMANCE000000000003',
    delivery: () =>
      line().batch(
        lineEvents([
          ['01KCONFORMANCE000000000001', false],
          ['01KCONFORMANCE000000000002', false],
        ]),
      ),
    rebatched: () =>
      line().batch(
        lineEvents([
          ['01KCONFORMANCE000000000002', true],
          ['01KCONFORMANCE000000000003', false],
        ]),
      ),
    answer: received,
  },
];
