/**
 * The Webflow preset, judged by `webflow-api`'s own `verifySignature` (its webhooks client alone),
 * which agrees with the preset on genuine and altered requests and accepts the test kit's
 * deliveries (judged here, not in testing/sdk-judges-stamped.test.ts: the module loads the SDK's
 * API client, seconds of CI time, so one file loads it once). The SDK checks no time.
 */
import { createHmac } from 'node:crypto';
import * as signers from '@webhook-idempotency/providers/testing';
import { Client } from 'webflow-api/wrapper/WebhooksClient';
import { webflow } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const sdk = new Client({} as never);
const SECRET = 'webflow-webhook-secret';
const BODY = JSON.stringify({
  triggerType: 'form_submission',
  payload: { id: '6321a6f8a6bd2a5fd4a6b9f7', name: 'Contact', data: { email: 'a@example.com' } },
});
const signature = (t: string, body: string, secret: string) =>
  createHmac('sha256', secret).update(`${t}:${body}`).digest('hex');
const judge = (headers: Record<string, string>, body: string) =>
  sdk.verifySignature({ headers, body, secret: SECRET });

describe('webflow preset', () => {
  describeStamped({
    build: (options) => webflow(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 300,
    body: BODY,
    key: 'form_submission:6321a6f8a6bd2a5fd4a6b9f7',
    sign: async (at, body, secret) => ({
      'x-webflow-timestamp': String(at),
      'x-webflow-signature': signature(String(at), body, secret),
    }),
  });

  it('agrees with the SDK’s verifySignature on a genuine and an altered request', async () => {
    const preset = webflow({ secret: SECRET });
    const t = String(Date.now());
    const headers = { 'x-webflow-timestamp': t, 'x-webflow-signature': signature(t, BODY, SECRET) };
    const altered = BODY.replace('Contact', 'Other');
    expect([
      await judge(headers, BODY),
      preset.verify?.(jsonRequest(BODY, { headers })),
      await judge(headers, altered),
      preset.verify?.(jsonRequest(altered, { headers })),
    ]).toEqual([true, true, false, false]);
  });

  it('keys a payload without an id on its digest, and names the event by triggerType', () => {
    const preset = webflow({ secret: SECRET });
    const publish = (site: string) =>
      jsonRequest({ triggerType: 'site_publish', payload: { site, publishedOn: 'x' } });
    expect(preset.key(publish('a'))).toMatch(/^site_publish:[0-9a-f]{32}$/);
    expect(preset.key(publish('a'))).not.toBe(preset.key(publish('b')));
    expect(preset.eventType(jsonRequest(BODY))).toBe('form_submission');
  });

  it('signs test-kit deliveries the SDK accepts, and forged ones it refuses', async () => {
    const delivery = signers.webflow({ secret: SECRET }).event(JSON.parse(BODY));
    const kit = (d: signers.Delivery) => judge({ ...d.headers }, d.body.toString('utf8'));
    expect(await kit(delivery)).toBe(true);
    expect(await kit(delivery.retry())).toBe(true);
    expect(await kit(delivery.forged())).toBe(false);
  });
});
