/**
 * A preset's challenge or handshake answer can never verify as a delivery. Every preset that
 * answers one itself (Braintree's `bt_challenge` GET, Meta's `hub.challenge` GET, Zoom's
 * `endpoint.url_validation`, Twitch's `webhook_callback_verification`, Discord's PING) is asked
 * for its answer, and that answer is then sent back as a delivery in every place a delivery
 * carries its payload or its signature: `verify` refuses it, and through the real engine on a
 * store, with `onMissingKey: 'passthrough'` (the setting that would hand a keyless request to the
 * handler), it is answered 401 with no claim and no handler. An echo of text the sender chose is
 * sent as `text/plain` (or JSON where the protocol wants JSON) with `nosniff`.
 */
import { createHmac, generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import braintreeSdk from 'braintree';
import { type HttpRequest, InMemoryStore, type ProviderPreset } from '@webhook-idempotency/core';
import { createEngine, type HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { braintree, discord, meta, twitch, zoom } from '../../src';
import { clockAt, formRequest, jsonRequest, makeRequest } from '../helpers';

const NOW = 1_765_000_000;

/** The preset's answer to `challenge`, through the engine: a response record, never a claim. */
async function answerOf(preset: ProviderPreset, challenge: HttpRequest) {
  const claims: string[] = [];
  const engine = createEngine({
    store: new InMemoryStore(),
    preset,
    onEvent: (event) => void (event.type === 'claimed' && claims.push(event.type)),
  });
  const decision = await engine.begin(challenge);
  if (decision.action !== 'respond') throw new Error(`expected an answer, got ${decision.action}`);
  expect(claims).toEqual([]);
  return decision.response;
}

/** `replay` sent as a delivery through the engine, with onMissingKey: 'passthrough'. */
async function asDelivery(preset: ProviderPreset, replay: HttpRequest) {
  const claims: string[] = [];
  const engine = createEngine({
    store: new InMemoryStore(),
    preset,
    onMissingKey: 'passthrough',
    onEvent: (event) => void (event.type === 'claimed' && claims.push(event.type)),
  });
  expect(await preset.verify?.(replay)).toBe(false);
  const decision = await engine.begin(replay);
  return {
    action: decision.action,
    status: decision.action === 'respond' ? decision.response.status : undefined,
    claims: claims.length,
  };
}

const refused = { action: 'respond', status: 401, claims: 0 };

/** An echo of text the sender chose, answered 200 as plain text. */
function expectPlainEcho(answer: HttpResponseRecord, text: string) {
  expect(answer.status).toBe(200);
  expect(answer.body.toString('utf8')).toBe(text);
  expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
}

describe('a challenge answer replayed as a delivery', () => {
  it("braintree: the bt_challenge answer (the SDK's own) signs no payload a delivery can carry", async () => {
    const publicKey = 'our_public_key';
    const privateKey = 'our_private_key_0123456789abcdef';
    const sdk = new braintreeSdk.BraintreeGateway({
      environment: braintreeSdk.Environment.Sandbox,
      merchantId: 'our_merchant_id',
      publicKey,
      privateKey,
    });
    const preset = braintree({ publicKey, privateKey });
    const challenge = '38aa0fc4d7cf1e85b6d5a8e9c0ffee1234567890';
    for (const hex of [challenge.slice(0, 20), challenge.slice(0, 24), challenge.slice(0, 32)]) {
      const get = makeRequest({ method: 'GET', url: `/webhooks/braintree?bt_challenge=${hex}` });
      const answer = await answerOf(preset, get);
      const sdkAnswer = (
        sdk.webhookNotification as unknown as { verify(c: string): string }
      ).verify(hex);
      expectPlainEcho(answer, sdkAnswer);

      // What the answer would sign: the challenge, as bt_payload, with or without a newline.
      for (const payload of [hex, `${hex}\n`]) {
        const replay = formRequest({ bt_signature: answer.body.toString(), bt_payload: payload });
        // The SDK verifies the HMAC, then fails to read a notification out of it.
        await expect(
          sdk.webhookNotification.parse(answer.body.toString(), payload),
        ).rejects.toThrow();
        expect(await asDelivery(preset, replay)).toEqual(refused);
      }
    }
  });

  it('meta: the hub.challenge echo is plain text with nosniff and verifies nothing', async () => {
    const preset = meta({ appSecret: 'meta app secret', verifyToken: 'our-verify-token' });
    const body = JSON.stringify({ object: 'page', entry: [{ id: '1', messaging: [{ a: 1 }] }] });
    for (const echo of [body, '<script>alert(1)</script>', 'sha256=00ff']) {
      const query = new URLSearchParams({
        'hub.mode': 'subscribe',
        'hub.verify_token': 'our-verify-token',
        'hub.challenge': echo,
      });
      const answer = await answerOf(preset, makeRequest({ method: 'GET', url: `/meta?${query}` }));
      expectPlainEcho(answer, echo);
      const text = answer.body.toString();
      for (const signature of [text, `sha256=${text}`]) {
        const replay = jsonRequest(text, { headers: { 'x-hub-signature-256': signature } });
        expect(await asDelivery(preset, replay)).toEqual(refused);
      }
    }
  });

  describe('zoom', () => {
    const secret = 'zoom secret token of ours';
    const preset = zoom({ secretToken: secret });
    const signed = (body: string, stamp: string) =>
      jsonRequest(body, {
        headers: {
          'x-zm-request-timestamp': stamp,
          'x-zm-signature': `v0=${createHmac('sha256', secret).update(`v0:${stamp}:${body}`).digest('hex')}`,
        },
      });
    const started = JSON.stringify({
      event: 'meeting.started',
      event_ts: 1765000000123,
      payload: { account_id: 'acct', object: { id: '85746065', uuid: 'u==' } },
    });
    const validation = (plainToken: string) =>
      JSON.stringify({
        event: 'endpoint.url_validation',
        event_ts: 1765000000999,
        payload: { plainToken },
      });

    it('the encryptedToken of a validation is not the signature of any delivery', async () => {
      const answer = await answerOf(preset, signed(validation('qgg8vlvZRS6UYooatFL8Aw'), '1'));
      expect(answer.status).toBe(200);
      const { encryptedToken } = JSON.parse(answer.body.toString()) as { encryptedToken: string };
      const replay = jsonRequest(started, {
        headers: { 'x-zm-request-timestamp': '1', 'x-zm-signature': `v0=${encryptedToken}` },
      });
      expect(await asDelivery(preset, replay)).toEqual(refused);
    });

    it('a plainToken spelled like a signed delivery ("v0:{ts}:{body}") is refused, not answered', async () => {
      // The encryptedToken is the HMAC of the plainToken under the same secret that signs
      // deliveries: answered, this token's answer would be the signature of `started`.
      const crafted = `v0:1765000000:${started}`;
      const answer = await answerOf(preset, signed(validation(crafted), '1765000000'));
      expect(answer.status).toBe(400);
      const text = answer.body.toString();
      const mac = createHmac('sha256', secret).update(crafted).digest('hex');
      expect(text).not.toContain(mac);
      const replay = jsonRequest(started, {
        headers: { 'x-zm-request-timestamp': '1765000000', 'x-zm-signature': `v0=${mac}` },
      });
      // Only the real signer can make this request; the preset never lends it.
      expect(preset.verify?.(replay)).toBe(true);
    });
  });

  it('twitch: the challenge echo is plain text with nosniff and verifies nothing', async () => {
    const secret = 'a-subscription-secret-of-our-own';
    const preset = twitch({ secret, clock: clockAt(NOW) });
    const stamp = new Date(NOW * 1000).toISOString();
    const headers = (id: string, type: string, body: string, signature?: string) => ({
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-timestamp': stamp,
      'twitch-eventsub-message-type': type,
      'twitch-eventsub-message-signature':
        signature ??
        `sha256=${createHmac('sha256', secret)
          .update(id + stamp + body)
          .digest('hex')}`,
    });
    const challenge = '<html><body>pogchamp-kappa</body></html>';
    const verification = JSON.stringify({ challenge, subscription: { type: 'channel.follow' } });
    const answer = await answerOf(
      preset,
      jsonRequest(verification, {
        headers: headers('msg-1', 'webhook_callback_verification', verification),
      }),
    );
    expectPlainEcho(answer, challenge);
    const follow = JSON.stringify({ subscription: { type: 'channel.follow' }, event: {} });
    for (const [body, signature] of [
      [follow, `sha256=${answer.body.toString()}`],
      [answer.body.toString(), `sha256=${answer.body.toString()}`],
    ] as const) {
      const replay = jsonRequest(body, {
        headers: headers('msg-2', 'notification', body, signature),
      });
      expect(await asDelivery(preset, replay)).toEqual(refused);
    }
  });

  it("discord: the PONG, with the PING's own signature, is not an interaction", async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const hexKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
    const preset = discord({ publicKey: hexKey, clock: clockAt(NOW) });
    const ping = JSON.stringify({ id: '1247856129870049999', type: 1 });
    const signature = ed25519Sign(null, Buffer.from(String(NOW) + ping), privateKey).toString(
      'hex',
    );
    const headers = { 'x-signature-timestamp': String(NOW), 'x-signature-ed25519': signature };
    const answer = await answerOf(preset, jsonRequest(ping, { headers }));
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"type":1}');
    const replay = jsonRequest(answer.body.toString(), { headers });
    expect(await asDelivery(preset, replay)).toEqual(refused);
  });
});
