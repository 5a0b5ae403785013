import { generateKeyPairSync, sign } from 'node:crypto';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { ConfigError } from '@webhook-idempotency/core';
import { sendgrid } from '../src';
import { clockAt, jsonRequest } from './helpers';

/**
 * SendGrid's own published vector: the one-event batch, key, signature and timestamp the
 * `@sendgrid/eventwebhook` 8.0.0 package ships with its tests (src/eventwebhook.spec.js). The body
 * ends with CRLF, as SendGrid sends it.
 */
const VECTOR = {
  publicKey:
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+2fNNRaINXvVpiglSI8eNEc6wEA3F+g==',
  signature:
    'MEUCIGHQVtGj+Y3LkG9fLcxf3qfI10QysgDWmMOVmxG0u6ZUAiEAyBiXDWzM+uOe5W0JuG+luQAbPIqHh89M15TluLtEZtM=',
  timestamp: '1600112502',
  body: `${JSON.stringify([
    {
      email: 'hello@world.com',
      event: 'dropped',
      reason: 'Bounced Address',
      sg_event_id: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
      sg_message_id: 'LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0',
      'smtp-id': '<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>',
      timestamp: 1600112492,
    },
  ])}\r\n`,
};

const NOW = 1_765_000_000;
const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
/** The key as SendGrid's settings page shows it: base64 of the DER SubjectPublicKeyInfo. */
const PUBLIC_KEY = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;

const batch = `${JSON.stringify([
  { email: 'a@example.com', event: 'processed', sg_event_id: 'cHJvY2Vzc2VkLTE', timestamp: NOW },
  { email: 'a@example.com', event: 'delivered', sg_event_id: 'ZGVsaXZlcmVkLTE', timestamp: NOW },
  { email: 'b@example.com', event: 'open', timestamp: NOW },
])}\r\n`;

/** What SendGrid sends: base64 DER ECDSA (P-256, SHA-256) over the timestamp then the body. */
const signed = (body: string, timestamp = String(NOW), key = privateKey) =>
  sign('sha256', Buffer.from(timestamp + body), key).toString('base64');

const request = (body: string, signature: string | undefined, timestamp = String(NOW)) =>
  jsonRequest(body, {
    headers: {
      'x-twilio-email-event-webhook-timestamp': timestamp,
      ...(signature === undefined ? {} : { 'x-twilio-email-event-webhook-signature': signature }),
    },
  });

/** The judge: the SDK's EventWebhook.verifySignature (it checks no timestamp window). */
const judge = (key: string, body: string, signature: string, timestamp = String(NOW)) => {
  const webhook = new EventWebhook();
  return webhook.verifySignature(webhook.convertPublicKeyToECDSA(key), body, signature, timestamp);
};

describe('sendgrid preset', () => {
  const preset = sendgrid({ publicKey: PUBLIC_KEY, clock: clockAt(NOW) });

  it('describes itself: batched, keyed per event on sg_event_id, else on its content', () => {
    expect(preset).toMatchObject({ provider: 'sendgrid', needsRawBody: true, retentionDays: 3 });
    const items = preset.items!(request(batch, undefined))!;
    expect(items.map((item) => item.key)).toEqual([
      'cHJvY2Vzc2VkLTE',
      'ZGVsaXZlcmVkLTE',
      expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    ]);
    expect(items[1]!.value).toMatchObject({ event: 'delivered' });
    expect(preset.items!(request('{"not":"a batch"}', undefined))).toBeUndefined();
    expect(preset.key(request(batch, undefined))).toBeUndefined();
  });

  it("accepts SendGrid's own vector, which the SDK accepts, and refuses it tampered", () => {
    expect(judge(VECTOR.publicKey, VECTOR.body, VECTOR.signature, VECTOR.timestamp)).toBe(true);
    const atVector = sendgrid({
      publicKey: VECTOR.publicKey,
      clock: clockAt(Number(VECTOR.timestamp)),
    });
    expect(atVector.verify!(request(VECTOR.body, VECTOR.signature, VECTOR.timestamp))).toBe(true);
    const tampered = VECTOR.body.replace('Bounced Address', 'Bounced Addresses');
    expect(judge(VECTOR.publicKey, tampered, VECTOR.signature, VECTOR.timestamp)).toBe(false);
    expect(atVector.verify!(request(tampered, VECTOR.signature, VECTOR.timestamp))).toBe(false);
    // The same key spelled as PEM.
    const pem = `-----BEGIN PUBLIC KEY-----\n${VECTOR.publicKey}\n-----END PUBLIC KEY-----\n`;
    const fromPem = sendgrid({ publicKey: pem, clock: clockAt(Number(VECTOR.timestamp)) });
    expect(fromPem.verify!(request(VECTOR.body, VECTOR.signature, VECTOR.timestamp))).toBe(true);
  });

  it('accepts what the SDK accepts of our own signing, and refuses what it refuses', () => {
    expect(judge(PUBLIC_KEY, batch, signed(batch))).toBe(true);
    expect(preset.verify!(request(batch, signed(batch)))).toBe(true);

    const tampered = batch.replace('"open"', '"click"');
    expect(judge(PUBLIC_KEY, tampered, signed(batch))).toBe(false);
    expect(preset.verify!(request(tampered, signed(batch)))).toBe(false);

    const wrongKey = signed(batch, String(NOW), other);
    expect(judge(PUBLIC_KEY, batch, wrongKey)).toBe(false);
    expect(preset.verify!(request(batch, wrongKey))).toBe(false);

    // Another timestamp than the one signed.
    expect(judge(PUBLIC_KEY, batch, signed(batch), String(NOW + 1))).toBe(false);
    expect(preset.verify!(request(batch, signed(batch), String(NOW + 1)))).toBe(false);
  });

  it('refuses a stamp outside the window, which the SDK does not check', () => {
    const stale = String(NOW - 90_001);
    expect(judge(PUBLIC_KEY, batch, signed(batch, stale), stale)).toBe(true);
    expect(preset.verify!(request(batch, signed(batch, stale), stale))).toBe(false);
    const narrow = sendgrid({ publicKey: PUBLIC_KEY, clock: clockAt(NOW), toleranceSeconds: 60 });
    const recent = String(NOW - 61);
    expect(narrow.verify!(request(batch, signed(batch, recent), recent))).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['not base64', '!!!'],
    ['empty', ''],
  ])('refuses a signature that is %s', (_label, signature) => {
    expect(preset.verify!(request(batch, signature))).toBe(false);
  });

  it.each([
    ['no options', 'options', undefined],
    ['no key', 'publicKey', {}],
    ['a key that is no key', 'publicKey', { publicKey: 'not a key' }],
    [
      'an Ed25519 key',
      'publicKey',
      {
        publicKey: generateKeyPairSync('ed25519')
          .publicKey.export({ format: 'der', type: 'spki' })
          .toString('base64'),
      },
    ],
    ['a zero tolerance', 'toleranceSeconds', { publicKey: PUBLIC_KEY, toleranceSeconds: 0 }],
  ])('%s throws a ConfigError naming %s', (_label, option, options) => {
    expect(() => sendgrid(options as never)).toThrow(ConfigError);
    expect(() => sendgrid(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
