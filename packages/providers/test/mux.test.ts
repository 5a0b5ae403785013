/**
 * The Mux preset, judged by `@mux/mux-node`'s own webhook module (`Webhooks`, loaded alone): its
 * `verifySignature` agrees with the preset on genuine and altered requests and on a header listing
 * several `v1`. The shared behaviours are signed with node:crypto from the same formula (the SDK
 * keeps its signer private).
 */
import { createHmac } from 'node:crypto';
import { Webhooks } from '@mux/mux-node/resources/webhooks';
import { mux } from '../src';
import { jsonRequest } from './helpers';
import { describeStamped } from './stamped-cases';

const sdk = new Webhooks({} as never);
const SECRET = 'mux-webhook-secret';
const BODY = JSON.stringify({
  type: 'video.asset.ready',
  id: '3a56ac3d-33da-4366-855b-f592d898409d',
  object: { type: 'asset', id: 'asset_01' },
  data: { id: 'asset_01', status: 'ready' },
});
const v1 = (t: number, body: string, secret: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('mux preset', () => {
  describeStamped({
    build: (options) => mux(options as never),
    option: 'secret',
    secret: SECRET,
    tolerance: 300,
    body: BODY,
    key: '3a56ac3d-33da-4366-855b-f592d898409d',
    sign: async (at, body, secret) => {
      const t = Math.floor(at / 1000);
      return { 'mux-signature': `t=${t},v1=${v1(t, body, secret)}` };
    },
  });

  it('agrees with the SDK’s verifySignature on genuine, listed and altered requests', async () => {
    const preset = mux({ secret: SECRET });
    const t = Math.floor(Date.now() / 1000);
    const listed = `t=${t},v1=${v1(t, BODY, 'old-secret')},v1=${v1(t, BODY, SECRET)}`;
    const judge = (body: string) =>
      sdk.verifySignature(body, { 'mux-signature': listed }, SECRET).then(
        () => true,
        () => false,
      );
    const headers = { 'mux-signature': listed };
    const altered = BODY.replace('ready', 'errored');
    expect([
      await judge(BODY),
      preset.verify?.(jsonRequest(BODY, { headers })),
      await judge(altered),
      preset.verify?.(jsonRequest(altered, { headers })),
    ]).toEqual([true, true, false, false]);
    expect(preset.eventType(jsonRequest(BODY))).toBe('video.asset.ready');
  });
});
