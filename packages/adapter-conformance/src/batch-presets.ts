/**
 * @module One genuine batch per batched preset (SendGrid, HubSpot, Adyen, Meta), signed the way
 * that provider signs, with a re-batch that repeats one item beside a new one, a forged copy, and
 * Meta's verification GET: what the batch cases send through every adapter. The presets' own tests
 * check the same schemes against the providers' SDKs.
 */
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import type { ProviderPreset } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { PresetRequest } from './presets';
import type { Answer } from './types';

/** One batched preset and the requests the suite sends it. */
export interface BatchFixture {
  /** Shown in test names. */
  readonly name: string;
  readonly preset: () => ProviderPreset;
  /** The receipts' external ids of the genuine batch's items, in order. */
  readonly itemIds: readonly string[];
  /** The external id of the item only the re-batch carries. */
  readonly newItemId: string;
  /** The genuine batch, signed now (a redelivery is the same request again). */
  delivery(): PresetRequest;
  /** The provider's retry in another batch: the last item again (a retry's bookkeeping changed), and a new one. */
  rebatched(): PresetRequest;
  /** The batch with its authentication forged. */
  forged(): PresetRequest;
  /** What the handler answers once every item is done: the shape the provider requires. */
  readonly answer: Answer;
  /** A verified handshake on GET /hook (its query), the exact answer, and a forged one's status. */
  readonly handshake?: {
    readonly query: string;
    readonly forgedQuery: string;
    readonly answer: string;
    readonly forgedStatus: number;
    /** The answer sent back as a delivery, in the place a delivery carries its signature or payload. */
    replay(answer: string): PresetRequest;
  };
}

const now = () => Math.floor(Date.now() / 1000);
const hmac = (key: string | Buffer, data: string, encoding: 'hex' | 'base64') =>
  createHmac('sha256', key).update(data).digest(encoding);

const SENDGRID = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const SENDGRID_FORGER = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
const sendgridEvents = (ids: readonly string[]) =>
  `${JSON.stringify(ids.map((sg_event_id) => ({ sg_event_id, event: 'delivered', email: 'a@example.com' })))}\r\n`;
const sendgridSigned = (ids: readonly string[], key = SENDGRID.privateKey): PresetRequest => {
  const stamp = String(now());
  const body = sendgridEvents(ids);
  return {
    body,
    headers: {
      'x-twilio-email-event-webhook-timestamp': stamp,
      'x-twilio-email-event-webhook-signature': sign(
        'sha256',
        Buffer.from(stamp + body),
        key,
      ).toString('base64'),
    },
  };
};

const HUBSPOT_SECRET = 'conformance hubspot secret';
const HUBSPOT_URL = 'https://conformance.example/hook';
const hubspotSigned = (
  events: readonly [number, number][],
  secret = HUBSPOT_SECRET,
): PresetRequest => {
  const body = JSON.stringify(
    events.map(([eventId, attemptNumber]) => ({
      eventId,
      subscriptionId: 20,
      portalId: 10,
      occurredAt: 1_764_000_000_000,
      subscriptionType: 'contact.creation',
      attemptNumber,
      objectId: 123,
    })),
  );
  const stamp = String(Date.now());
  return {
    body,
    headers: {
      'x-hubspot-request-timestamp': stamp,
      'x-hubspot-signature-v3': hmac(secret, `POST${HUBSPOT_URL}${body}${stamp}`, 'base64'),
    },
  };
};

const ADYEN_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
/** Adyen's documented signing string for a payments webhook item, under the hex-decoded key. */
const adyenItem = (pspReference: string, eventCode: string, key = ADYEN_KEY) => {
  const item = {
    pspReference,
    merchantAccountCode: 'ConformanceECOM',
    merchantReference: 'order-1',
    amount: { value: 1000, currency: 'EUR' },
    eventCode,
    success: 'true',
  };
  const signed = [
    pspReference,
    '',
    item.merchantAccountCode,
    item.merchantReference,
    1000,
    'EUR',
    eventCode,
    'true',
  ].join(':');
  return {
    NotificationRequestItem: {
      ...item,
      additionalData: { hmacSignature: hmac(Buffer.from(key, 'hex'), signed, 'base64') },
    },
  };
};
const adyenSigned = (items: readonly [string, string][], key = ADYEN_KEY): PresetRequest => ({
  body: JSON.stringify({
    live: 'false',
    notificationItems: items.map(([psp, code]) => adyenItem(psp, code, key)),
  }),
  headers: {},
});

const META_SECRET = 'conformance meta secret';
const metaSigned = (ids: readonly string[], secret = META_SECRET): PresetRequest => {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'waba-1',
        changes: ids.map((id) => ({
          field: 'messages',
          value: { messages: [{ id, from: '1555', type: 'text', text: { body: 'hi' } }] },
        })),
      },
    ],
  });
  return { body, headers: { 'x-hub-signature-256': `sha256=${hmac(secret, body, 'hex')}` } };
};

const accepted: Answer = {
  kind: 'text',
  headers: { 'content-type': 'text/plain' },
  value: '[accepted]',
};
const received: Answer = { kind: 'json', value: { received: true } };

export const batchFixtures: readonly BatchFixture[] = [
  {
    name: 'sendgrid',
    preset: () =>
      providers.sendgrid({
        publicKey: SENDGRID.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      }),
    itemIds: ['sg-evt-1', 'sg-evt-2'],
    newItemId: 'sg-evt-3',
    delivery: () => sendgridSigned(['sg-evt-1', 'sg-evt-2']),
    rebatched: () => sendgridSigned(['sg-evt-2', 'sg-evt-3']),
    forged: () => sendgridSigned(['sg-evt-1', 'sg-evt-2'], SENDGRID_FORGER),
    answer: received,
  },
  {
    name: 'hubspot',
    preset: () => providers.hubspot({ clientSecret: HUBSPOT_SECRET, targetUrl: HUBSPOT_URL }),
    itemIds: ['10:20:1', '10:20:2'],
    newItemId: '10:20:3',
    delivery: () =>
      hubspotSigned([
        [1, 0],
        [2, 0],
      ]),
    rebatched: () =>
      hubspotSigned([
        [2, 1],
        [3, 0],
      ]),
    forged: () =>
      hubspotSigned(
        [
          [1, 0],
          [2, 0],
        ],
        'forger',
      ),
    answer: received,
  },
  {
    name: 'adyen',
    preset: () => providers.adyen({ hmacKey: ADYEN_KEY }),
    itemIds: ['1000000000000001:AUTHORISATION:true', '1000000000000002:CAPTURE:true'],
    newItemId: '1000000000000003:REFUND:true',
    delivery: () =>
      adyenSigned([
        ['1000000000000001', 'AUTHORISATION'],
        ['1000000000000002', 'CAPTURE'],
      ]),
    rebatched: () =>
      adyenSigned([
        ['1000000000000002', 'CAPTURE'],
        ['1000000000000003', 'REFUND'],
      ]),
    forged: () =>
      adyenSigned(
        [
          ['1000000000000001', 'AUTHORISATION'],
          ['1000000000000002', 'CAPTURE'],
        ],
        ADYEN_KEY.replace('44', '45'),
      ),
    answer: accepted,
  },
  {
    name: 'meta',
    preset: () => providers.meta({ appSecret: META_SECRET, verifyToken: 'conformance-token' }),
    itemIds: ['wamid.conformance.1', 'wamid.conformance.2'],
    newItemId: 'wamid.conformance.3',
    delivery: () => metaSigned(['wamid.conformance.1', 'wamid.conformance.2']),
    rebatched: () => metaSigned(['wamid.conformance.2', 'wamid.conformance.3']),
    forged: () => metaSigned(['wamid.conformance.1', 'wamid.conformance.2'], 'forger'),
    answer: { kind: 'text', value: 'EVENT_RECEIVED' },
    handshake: {
      query: 'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=conformance-token',
      forgedQuery: 'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess',
      answer: '1158201444',
      forgedStatus: 403,
      replay: (answer) => ({
        body: answer,
        headers: { 'x-hub-signature-256': `sha256=${answer}` },
      }),
    },
  },
];
