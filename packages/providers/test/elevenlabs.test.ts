/**
 * The ElevenLabs preset, judged by `@elevenlabs/elevenlabs-js`'s own webhook verifier
 * (`WebhooksClient.constructEvent`, the SDK's webhook module alone): it agrees with the preset on
 * genuine and altered requests, and it judges the test kit's signer here too (not in
 * testing/sdk-judges-stamped.test.ts): the module loads the SDK's whole API client, seconds of CI
 * time, so one file loads it once. The shared behaviours are signed from the documented formula.
 */
import { createHmac } from 'node:crypto';
import { WebhooksClient } from '@elevenlabs/elevenlabs-js/wrapper/webhooks';
import * as signers from '@webhook-idempotency/providers/testing';
import { elevenlabs } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const SECRET = 'wsec_elevenlabs_test';
const BODY = JSON.stringify({
  type: 'post_call_transcription',
  event_timestamp: 1_796_112_000,
  data: {
    agent_id: 'agent_01',
    conversation_id: 'conv_01jxk1wb5rf8qzr3zd0qf0xq9a',
    status: 'done',
  },
});
const header = (t: number, body: string, secret: string) =>
  `t=${t},v0=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

describe('elevenlabs preset', () => {
  describeStamped({
    build: (options) => elevenlabs(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 1800,
    body: BODY,
    key: 'post_call_transcription:conv_01jxk1wb5rf8qzr3zd0qf0xq9a',
    sign: async (at, body, secret) => ({
      'elevenlabs-signature': header(Math.floor(at / 1000), body, secret),
    }),
  });

  it('agrees with the SDK’s constructEvent on a genuine and an altered request, at the real time', async () => {
    const sdk = new WebhooksClient({});
    const preset = elevenlabs({ secret: SECRET });
    const sig = header(Math.floor(Date.now() / 1000), BODY, SECRET);
    const judge = (body: string) =>
      sdk.constructEvent(body, sig, SECRET).then(
        () => true,
        () => false,
      );
    const headers = { 'elevenlabs-signature': sig };
    expect([await judge(BODY), preset.verify?.(jsonRequest(BODY, { headers }))]).toEqual([
      true,
      true,
    ]);
    const altered = BODY.replace('done', 'failed');
    expect([await judge(altered), preset.verify?.(jsonRequest(altered, { headers }))]).toEqual([
      false,
      false,
    ]);
  });

  it('keys an event that names no conversation on its time and a digest of its data', () => {
    const preset = elevenlabs({ secret: SECRET });
    const stt = (text: string) =>
      jsonRequest({ type: 'speech_to_text.completed', event_timestamp: 7, data: { text } });
    expect(preset.key(stt('hello'))).toMatch(/^speech_to_text\.completed:7:[0-9a-f]{32}$/);
    expect(preset.key(stt('hello'))).not.toBe(preset.key(stt('bye')));
    expect(preset.key(jsonRequest({ type: 'x', data: {} }))).toBeUndefined();
    expect(preset.eventType(jsonRequest(BODY))).toBe('post_call_transcription');
  });
});

describe('the elevenlabs signer of the test kit, judged by the SDK’s constructEvent', () => {
  const sdk = new WebhooksClient({});
  const judge = (delivery: signers.Delivery) =>
    sdk
      .constructEvent(
        delivery.body.toString('utf8'),
        delivery.headers['elevenlabs-signature']!,
        SECRET,
      )
      .then(
        () => true,
        () => false,
      );
  const delivery = signers.elevenlabs({ secret: SECRET }).event(JSON.parse(BODY));

  it('accepts the delivery and its retry, refuses the forged copy and one signed an hour ago', async () => {
    expect(await judge(delivery)).toBe(true);
    expect(await judge(delivery.retry())).toBe(true);
    expect(await judge(delivery.forged())).toBe(false);
    expect(await judge(delivery.retry({ at: Date.now() - 3_600_000 }))).toBe(false);
  });
});
