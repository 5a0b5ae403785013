/**
 * Every answer a preset sends for its provider's challenge or handshake carries
 * `X-Content-Type-Options: nosniff` and a content-type the protocol asks for: Meta, Braintree
 * and Twitch echo text the request named (Meta's `hub.challenge` needs only the verify token),
 * so a browser that opened such a URL must never sniff it into HTML. Zoom and Discord answer JSON.
 */
import { createHmac, generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { braintree, discord, meta, twitch, zoom } from '../../src';
import { clockAt, jsonRequest, makeRequest } from '../helpers';

const NOW = 1_765_000_000;
const HTML = '<html><script>alert(document.cookie)</script></html>';
const get = (url: string) => makeRequest({ method: 'GET', url });

/** The record a preset answers a challenge (a read) or a handshake (after `verify`) with. */
async function answer(preset: ProviderPreset, request: HttpRequest): Promise<HttpResponseRecord> {
  if (request.method === 'GET') {
    const record = preset.challenge?.(request);
    if (!record) throw new Error('no challenge answer');
    return record;
  }
  expect(await preset.verify?.(request)).toBe(true);
  const record = preset.handshake?.(request);
  if (!record) throw new Error('no handshake answer');
  return record;
}

const zoomSecret = 'zoom secret token of ours';
const zoomValidation = JSON.stringify({
  event: 'endpoint.url_validation',
  event_ts: 1,
  payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' },
});
const twitchSecret = 'a-subscription-secret-of-our-own';
const twitchStamp = new Date(NOW * 1000).toISOString();
const twitchBody = JSON.stringify({ challenge: HTML, subscription: {} });
const discordKeys = generateKeyPairSync('ed25519');
const discordPing = JSON.stringify({ id: '1', type: 1 });

const cases: ReadonlyArray<
  readonly [name: string, preset: () => ProviderPreset, request: () => HttpRequest, type: RegExp]
> = [
  [
    'meta hub.challenge',
    () => meta({ appSecret: 's', verifyToken: 'token' }),
    () =>
      get(
        `/m?${new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': 'token', 'hub.challenge': HTML })}`,
      ),
    /^text\/plain; charset=utf-8$/,
  ],
  [
    'meta refusal of a wrong verify token',
    () => meta({ appSecret: 's', verifyToken: 'token' }),
    () =>
      get(`/m?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=${encodeURIComponent(HTML)}`),
    /^text\/plain; charset=utf-8$/,
  ],
  [
    'braintree bt_challenge',
    () => braintree({ publicKey: 'pub', privateKey: 'priv' }),
    () => get('/b?bt_challenge=38aa0fc4d7cf1e85b6d5a8e9'),
    /^text\/plain; charset=utf-8$/,
  ],
  [
    'twitch webhook_callback_verification',
    () => twitch({ secret: twitchSecret, clock: clockAt(NOW) }),
    () =>
      jsonRequest(twitchBody, {
        headers: {
          'twitch-eventsub-message-id': 'msg-1',
          'twitch-eventsub-message-timestamp': twitchStamp,
          'twitch-eventsub-message-type': 'webhook_callback_verification',
          'twitch-eventsub-message-signature': `sha256=${createHmac('sha256', twitchSecret)
            .update(`msg-1${twitchStamp}${twitchBody}`)
            .digest('hex')}`,
        },
      }),
    /^text\/plain; charset=utf-8$/,
  ],
  [
    'zoom endpoint.url_validation',
    () => zoom({ secretToken: zoomSecret }),
    () =>
      jsonRequest(zoomValidation, {
        headers: {
          'x-zm-request-timestamp': '1',
          'x-zm-signature': `v0=${createHmac('sha256', zoomSecret).update(`v0:1:${zoomValidation}`).digest('hex')}`,
        },
      }),
    /^application\/json(; charset=utf-8)?$/,
  ],
  [
    'discord PING',
    () =>
      discord({
        publicKey: discordKeys.publicKey
          .export({ format: 'der', type: 'spki' })
          .subarray(-32)
          .toString('hex'),
        clock: clockAt(NOW),
      }),
    () =>
      jsonRequest(discordPing, {
        headers: {
          'x-signature-timestamp': String(NOW),
          'x-signature-ed25519': ed25519Sign(
            null,
            Buffer.from(String(NOW) + discordPing),
            discordKeys.privateKey,
          ).toString('hex'),
        },
      }),
    /^application\/json(; charset=utf-8)?$/,
  ],
];

describe('challenge and handshake answers', () => {
  it.each(cases)(
    '%s: nosniff, and the protocol’s content-type',
    async (_name, preset, request, type) => {
      const record = await answer(preset(), request());
      expect(record.headers['content-type']).toMatch(type);
      expect(record.headers['x-content-type-options']).toBe('nosniff');
    },
  );
});
