/**
 * @module The later presets of the catalogue (Twilio, Linear, Mercado Pago, Zoom, Braintree,
 * Mailgun), each with a genuine delivery signed as its provider documents, a forged copy and any
 * handshake: appended to the fixtures of ./presets, sent through every adapter. Twilio and
 * Braintree post form bodies, Mercado Pago signs a query parameter.
 */
import { createHash, createHmac } from 'node:crypto';
import { canonicalJson, sha256Hex } from '@webhook-idempotency/core/adapter';
import * as providers from '@webhook-idempotency/providers';
import type { PresetFixture, PresetRequest } from './preset-fixture';

const now = () => Math.floor(Date.now() / 1000);
const hex = (algorithm: string, key: string | Buffer, data: string) =>
  createHmac(algorithm, key).update(data).digest('hex');

const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** Twilio: base64 HMAC-SHA1 of the URL Twilio called and the sorted form fields, a form body. */
const TWILIO_TOKEN = 'conformance-twilio-auth-token';
const twilioFields: Array<[string, string]> = [
  ['MessageSid', 'SMconformance'],
  ['SmsStatus', 'received'],
  ['Body', 'Hello & welcome, 100% + more'],
  ['From', '+15551234567'],
];
const twilioSigned = (token: string): PresetRequest => {
  const fields = [...twilioFields].sort(([a], [b]) => (a < b ? -1 : 1));
  const signed = `https://example.com/hook${fields.map(([n, v]) => n + v).join('')}`;
  return {
    body: new URLSearchParams(twilioFields).toString(),
    headers: {
      ...FORM,
      'i-twilio-idempotency-token': 'twilio-idem-conformance',
      'x-twilio-signature': createHmac('sha1', token).update(signed).digest('base64'),
    },
  };
};

/**
 * A Twilio voice request without I-Twilio-Idempotency-Token (a `<Gather>` action): keyed on its
 * CallSid and the first 32 hex characters of the SHA-256 of the URL, a newline, and the sorted
 * parameters form-encoded, as docs/providers.md#twilio says.
 */
const twilioGather: Array<[string, string]> = [
  ['CallSid', 'CA0123456789abcdef0123456789abcdef'],
  ['CallStatus', 'in-progress'],
  ['Digits', '1'],
  ['From', '+15551234567'],
];
const twilioGatherKey = `CA0123456789abcdef0123456789abcdef:${createHash('sha256')
  .update(`https://example.com/hook\n${new URLSearchParams(twilioGather)}`)
  .digest('hex')
  .slice(0, 32)}`;
const twilioGatherSigned = (token: string): PresetRequest => {
  const signed = `https://example.com/hook${twilioGather.map(([n, v]) => n + v).join('')}`;
  return {
    body: new URLSearchParams([...twilioGather].reverse()).toString(),
    headers: {
      ...FORM,
      'x-twilio-signature': createHmac('sha1', token).update(signed).digest('base64'),
    },
  };
};

/** Linear: hex HMAC-SHA256 of the body, its webhookTimestamp (ms) fresh. */
const LINEAR_SECRET = 'conformance linear secret';
const linearSigned = (secret: string): PresetRequest => {
  const body = JSON.stringify({
    action: 'create',
    type: 'Issue',
    data: { id: 'lin-issue-1' },
    webhookTimestamp: Date.now(),
  });
  return {
    body,
    headers: {
      'linear-delivery': 'linear-delivery-conformance',
      'linear-signature': hex('sha256', secret, body),
    },
  };
};

/** Mercado Pago: hex HMAC-SHA256 of id:{data.id};request-id:{x-request-id};ts:{ts}; (the body is not signed). */
const MP_SECRET = 'conformance mercadopago secret';
const mercadopagoSigned = (secret: string): PresetRequest => {
  const ts = String(now());
  const manifest = `id:2026120401;request-id:mp-request-conformance;ts:${ts};`;
  return {
    path: '/hook?data.id=2026120401&type=payment',
    body: JSON.stringify({
      id: 1,
      type: 'payment',
      action: 'payment.updated',
      data: { id: '2026120401' },
    }),
    headers: {
      'x-request-id': 'mp-request-conformance',
      'x-signature': `ts=${ts},v1=${hex('sha256', secret, manifest)}`,
    },
  };
};

/** Zoom: "v0=" hex HMAC-SHA256 of v0:{timestamp}:{body}; keyed on event, event_ts and the payload's digest. */
const ZOOM_SECRET = 'conformance zoom secret token';
const zoomKey = (event: string, ts: number, payload: unknown) =>
  `${event}:${ts}:${sha256Hex(canonicalJson(payload)).slice(0, 32)}`;
const zoomStarted = { account_id: 'acct', object: { id: '85746065', uuid: 'conformance==' } };
const zoomValidation = { plainToken: 'conformance-plain-token' };
const zoomSigned = (
  event: string,
  ts: number,
  payload: unknown,
  secret = ZOOM_SECRET,
): PresetRequest => {
  const stamp = String(now());
  const body = JSON.stringify({ event, event_ts: ts, payload });
  return {
    body,
    headers: {
      'x-zm-request-timestamp': stamp,
      'x-zm-signature': `v0=${hex('sha256', secret, `v0:${stamp}:${body}`)}`,
    },
  };
};

/** Braintree: bt_signature `public|hex HMAC-SHA1` under SHA-1 of the private key, over bt_payload. */
const BRAINTREE_PUBLIC = 'conformance_public_key';
const BRAINTREE_CHALLENGE = '38aa0fc4d7cf1e85b6d5a8e9';
const braintreeXml =
  '<notification><timestamp type="datetime">2026-12-04T10:00:00Z</timestamp><kind>check</kind><subject><check type="boolean">true</check></subject></notification>';
const braintreeSigned = (privateKey: string): PresetRequest => {
  const payload = `${Buffer.from(braintreeXml).toString('base64')}\n`;
  const key = createHash('sha1').update(privateKey).digest();
  return {
    body: new URLSearchParams({
      bt_signature: `${BRAINTREE_PUBLIC}|${hex('sha1', key, payload)}`,
      bt_payload: payload,
    }).toString(),
    headers: FORM,
  };
};

/** Mailgun: hex HMAC-SHA256 of timestamp + token in the body's signature block. */
const MAILGUN_KEY = 'conformance mailgun signing key';
const mailgunSigned = (key: string): PresetRequest => {
  const timestamp = String(now());
  const token = 'c0nformance7oken0123456789abcdef0123456789abcdef01';
  return {
    body: JSON.stringify({
      signature: { timestamp, token, signature: hex('sha256', key, timestamp + token) },
      'event-data': { id: 'mg-event-conformance', event: 'delivered' },
    }),
    headers: {},
  };
};

/** The later presets the suite drives through each adapter. */
export const laterPresetFixtures: readonly PresetFixture[] = [
  {
    name: 'twilio (a form body)',
    preset: () => providers.twilio({ authToken: TWILIO_TOKEN, baseUrl: 'https://example.com' }),
    externalId: 'twilio-idem-conformance',
    delivery: () => twilioSigned(TWILIO_TOKEN),
    forged: () => twilioSigned('forged-twilio-auth-token'),
  },
  {
    name: 'twilio voice (no idempotency token: the signed request is the key)',
    preset: () => providers.twilio({ authToken: TWILIO_TOKEN, baseUrl: 'https://example.com' }),
    externalId: twilioGatherKey,
    delivery: () => twilioGatherSigned(TWILIO_TOKEN),
    forged: () => twilioGatherSigned('forged-twilio-auth-token'),
  },
  {
    name: 'linear',
    preset: () => providers.linear({ secret: LINEAR_SECRET }),
    externalId: 'linear-delivery-conformance',
    delivery: () => linearSigned(LINEAR_SECRET),
    forged: () => linearSigned('forger'),
  },
  {
    name: 'mercadopago (data.id in the query)',
    preset: () => providers.mercadopago({ secret: MP_SECRET }),
    externalId: '2026120401:mp-request-conformance',
    delivery: () => mercadopagoSigned(MP_SECRET),
    forged: () => mercadopagoSigned('forger'),
  },
  {
    name: 'zoom',
    preset: () => providers.zoom({ secretToken: ZOOM_SECRET }),
    externalId: zoomKey('meeting.started', 1733306400123, zoomStarted),
    delivery: () => zoomSigned('meeting.started', 1733306400123, zoomStarted),
    forged: () => zoomSigned('meeting.started', 1733306400123, zoomStarted, 'forger'),
    handshake: {
      request: () => zoomSigned('endpoint.url_validation', 1733306400999, zoomValidation),
      forged: () => zoomSigned('endpoint.url_validation', 1733306400999, zoomValidation, 'forger'),
      answer: JSON.stringify({
        plainToken: zoomValidation.plainToken,
        encryptedToken: hex('sha256', ZOOM_SECRET, zoomValidation.plainToken),
      }),
      externalId: zoomKey('endpoint.url_validation', 1733306400999, zoomValidation),
      // The encryptedToken (an HMAC under the signing secret) as a delivery's signature.
      replay: (answer) => {
        const { encryptedToken } = JSON.parse(answer) as { encryptedToken: string };
        const event = zoomSigned('meeting.started', 1733306400123, zoomStarted);
        const signature = { 'x-zm-signature': `v0=${encryptedToken}` };
        return { body: event.body, headers: { ...event.headers, ...signature } };
      },
    },
  },
  {
    name: 'braintree (a form body)',
    preset: () =>
      providers.braintree({ publicKey: BRAINTREE_PUBLIC, privateKey: 'conformance_private_key' }),
    externalId: `check:2026-12-04T10:00:00Z:${sha256Hex(braintreeXml).slice(0, 32)}`,
    delivery: () => braintreeSigned('conformance_private_key'),
    forged: () => braintreeSigned('forged_private_key'),
    challenge: {
      query: `bt_challenge=${BRAINTREE_CHALLENGE}`,
      answer: `${BRAINTREE_PUBLIC}|${hex('sha1', createHash('sha1').update('conformance_private_key').digest(), BRAINTREE_CHALLENGE)}`,
      // The answer signs the challenge's hex: sent as bt_payload under that signature.
      replay: (answer) => ({
        body: new URLSearchParams({
          bt_signature: answer,
          bt_payload: BRAINTREE_CHALLENGE,
        }).toString(),
        headers: FORM,
      }),
    },
  },
  {
    name: 'mailgun',
    preset: () => providers.mailgun({ signingKey: MAILGUN_KEY }),
    externalId: 'mg-event-conformance',
    delivery: () => mailgunSigned(MAILGUN_KEY),
    forged: () => mailgunSigned('forger'),
  },
];
