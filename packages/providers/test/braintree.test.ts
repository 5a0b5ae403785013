import { createHash, createHmac } from 'node:crypto';
import braintreeSdk from 'braintree';
import { ConfigError } from '@webhook-idempotency/core';
import { braintree } from '../src';
import { formRequest, makeRequest } from './helpers';

// Judged by the braintree SDK 3.40: webhookTesting.sampleNotification signs the notifications,
// webhookNotification.parse must agree with the preset on them and on altered copies, and
// webhookNotification.verify gives the challenge answer the preset must send.
const PUBLIC_KEY = 'our_public_key';
const PRIVATE_KEY = 'our_private_key_0123456789abcdef';
const gateway = (privateKey = PRIVATE_KEY) =>
  new braintreeSdk.BraintreeGateway({
    environment: braintreeSdk.Environment.Sandbox,
    merchantId: 'our_merchant_id',
    publicKey: PUBLIC_KEY,
    privateKey,
  });
const sdk = gateway();

type Sample = { bt_signature: string; bt_payload: string };
type Kind = braintreeSdk.WebhookNotificationKind;
const sample = async (kind: string, id: string): Promise<Sample> =>
  (await sdk.webhookTesting.sampleNotification(kind as Kind, id)) as Sample;
/** The SDK's answer to a challenge (`verify` is missing from @types/braintree). */
const verifyChallenge = (challenge: string): string =>
  (sdk.webhookNotification as unknown as { verify(challenge: string): string }).verify(challenge);
const parses = async ({ bt_signature, bt_payload }: Sample) => {
  try {
    await sdk.webhookNotification.parse(bt_signature, bt_payload);
    return true;
  } catch {
    return false;
  }
};
const post = (fields: Sample) => formRequest(fields);

describe('braintree preset', () => {
  const preset = braintree({ publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY });

  it('describes itself and keys on kind, timestamp and a digest of the notification', async () => {
    expect(preset).toMatchObject({ provider: 'braintree', needsRawBody: false, retentionDays: 7 });
    const charged = await sample('subscription_charged_successfully', 'sub_1');
    expect(preset.key(post(charged))).toMatch(
      /^subscription_charged_successfully:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ:[0-9a-f]{32}$/,
    );
    // Another subscription charged in the same second is another notification.
    const other = await sample('subscription_charged_successfully', 'sub_2');
    expect(preset.key(post(other))).not.toBe(preset.key(post(charged)));
    // A dispute's own <kind> inside the subject does not stand in for the notification's.
    expect(preset.key(post(await sample('dispute_opened', 'dp_1')))).toMatch(/^dispute_opened:/);
    expect(preset.key(formRequest({ bt_signature: 'x' }))).toBeUndefined();
  });

  it("accepts what the SDK's parse accepts, and refuses what it refuses", async () => {
    const genuine = await sample('subscription_went_past_due', 'sub_1');
    expect(await parses(genuine)).toBe(true);
    expect(preset.verify?.(post(genuine))).toBe(true);
    // Parsed by a form body parser instead of from the raw bytes: the same answer.
    expect(preset.verify?.(formRequest(genuine, { parsed: true, raw: false }))).toBe(true);

    const xml = Buffer.from(genuine.bt_payload, 'base64').toString('utf8');
    const tampered = {
      ...genuine,
      bt_payload: Buffer.from(xml.replace('sub_1', 'sub_9')).toString('base64'),
    };
    expect(await parses(tampered)).toBe(false);
    expect(preset.verify?.(post(tampered))).toBe(false);

    const otherKey = (await gateway('another_private_key').webhookTesting.sampleNotification(
      'subscription_went_past_due' as Kind,
      'sub_1',
    )) as Sample;
    expect(await parses(otherKey)).toBe(false);
    expect(preset.verify?.(post(otherKey))).toBe(false);

    const otherPublic = {
      ...genuine,
      bt_signature: genuine.bt_signature.replace(PUBLIC_KEY, 'someone_else'),
    };
    expect(await parses(otherPublic)).toBe(false);
    expect(preset.verify?.(post(otherPublic))).toBe(false);

    // Several pairs, ours among them; and the payload without its trailing newline.
    const pairs = { ...genuine, bt_signature: `someone_else|abc&${genuine.bt_signature}` };
    expect(await parses(pairs)).toBe(true);
    expect(preset.verify?.(post(pairs))).toBe(true);
    const trimmed = { ...genuine, bt_payload: genuine.bt_payload.replace(/\n$/, '') };
    expect(await parses(trimmed)).toBe(true);
    expect(preset.verify?.(post(trimmed))).toBe(true);

    const illegal = { ...genuine, bt_payload: `${genuine.bt_payload}<` };
    expect(await parses(illegal)).toBe(false);
    expect(preset.verify?.(post(illegal))).toBe(false);
  });

  it('verifies only a notification document: with or without an XML declaration, never other signed bytes', async () => {
    const key = createHash('sha1').update(PRIVATE_KEY).digest();
    const signed = (xml: string): Sample => {
      const payload = `${Buffer.from(xml).toString('base64')}\n`;
      const mac = createHmac('sha1', key).update(payload).digest('hex');
      return { bt_signature: `${PUBLIC_KEY}|${mac}`, bt_payload: payload };
    };
    const genuine = Buffer.from((await sample('check', '')).bt_payload, 'base64').toString();
    const declared = signed(`<?xml version="1.0" encoding="UTF-8"?>\n${genuine}`);
    expect(await parses(declared)).toBe(true);
    expect(preset.verify?.(post(declared))).toBe(true);
    // Signed under our key, but not a notification (or one without its kind): refused.
    for (const xml of ['<subject/>', '<notification><kind>check</kind></notification>', 'check'])
      expect(preset.verify?.(post(signed(xml)))).toBe(false);
  });

  it('fingerprints the decoded notification, so re-wrapped base64 is the same delivery', async () => {
    const genuine = await sample('check', '');
    const wrapped = {
      ...genuine,
      bt_payload: `${genuine.bt_payload.replace(/\n$/, '').replace(/(.{60})/g, '$1\n')}\n`,
    };
    expect(wrapped.bt_payload).not.toBe(genuine.bt_payload);
    expect(preset.fingerprint?.(post(wrapped))).toBe(preset.fingerprint?.(post(genuine)));
  });

  it("answers the bt_challenge GET with the SDK's verify answer, and no other read", () => {
    const challenge = '38aa0fc4d7cf1e85b6d5a8e9';
    const get = (url: string) => makeRequest({ method: 'GET', url });
    const answer = preset.challenge?.(get(`/webhooks/braintree?bt_challenge=${challenge}`));
    expect(answer?.status).toBe(200);
    expect(answer?.body.toString()).toBe(verifyChallenge(challenge));
    for (const refused of ['not-hex-at-all-000000', 'abc', 'A'.repeat(24), 'a'.repeat(33)]) {
      expect(() => verifyChallenge(refused)).toThrow();
      expect(
        preset.challenge?.(get(`/webhooks/braintree?bt_challenge=${refused}`)),
      ).toBeUndefined();
    }
    expect(preset.challenge?.(get('/webhooks/braintree'))).toBeUndefined();
  });

  it.each([
    [undefined, 'options'],
    [{ privateKey: PRIVATE_KEY }, 'publicKey'],
    [{ publicKey: 'a|b', privateKey: PRIVATE_KEY }, 'publicKey'],
    [{ publicKey: PUBLIC_KEY }, 'privateKey'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => braintree(options as never)).toThrow(ConfigError);
    expect(() => braintree(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
