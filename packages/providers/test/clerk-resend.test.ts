import { verifyWebhook } from '@clerk/backend/webhooks';
import { Resend } from 'resend';
import { Webhook } from 'standardwebhooks';
import { ConfigError } from '@webhook-idempotency/core';
import { clerk, resend } from '../src';
import { clockAt, jsonRequest } from './helpers';

// The SDKs check the timestamp against the real clock: the deliveries here are signed now.
const NOW = Math.floor(Date.now() / 1000);
const SECRET = `whsec_${Buffer.from('clerk-and-resend-test-secret-32b').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another-secret-of-thirty-two-byt').toString('base64')}`;
const ID = 'msg_2yZwUhtgs5Ai8T9yRQJXA';

const userCreated = JSON.stringify({
  object: 'event',
  type: 'user.created',
  data: { id: 'user_29w83sxmDNGwOuEthce5gg56FcC', email_addresses: [] },
  timestamp: NOW * 1000,
});
const emailDelivered = JSON.stringify({
  type: 'email.delivered',
  created_at: '2026-12-04T10:00:00.000Z',
  data: { email_id: '56761188-7520-42d8-8898-ff6fc54ce618', to: ['user@example.com'] },
});

/** Svix's signature as the Standard Webhooks reference library computes it. */
const sign = (body: string, secret = SECRET, at = NOW) =>
  new Webhook(secret).sign(ID, new Date(at * 1000), body);

const svixHeaders = (signature: string, at = NOW) => ({
  'svix-id': ID,
  'svix-timestamp': String(at),
  'svix-signature': signature,
});

describe.each([
  ['clerk', clerk],
  ['resend', resend],
] as const)('%s preset', (name, factory) => {
  const preset = factory({ secret: SECRET, clock: clockAt(NOW) });

  it('is the Svix scheme under its own name, keyed on svix-id, kept 30 days', () => {
    expect(preset).toMatchObject({ provider: name, needsRawBody: true, retentionDays: 30 });
    expect(preset.key(jsonRequest('{}', { headers: svixHeaders('v1,x') }))).toBe(ID);
  });

  it('refuses a wrong secret, a tampered body and a stale timestamp', () => {
    const body = name === 'clerk' ? userCreated : emailDelivered;
    expect(preset.verify?.(jsonRequest(body, { headers: svixHeaders(sign(body)) }))).toBe(true);
    expect(preset.verify?.(jsonRequest(body, { headers: svixHeaders(sign(body, OTHER)) }))).toBe(
      false,
    );
    expect(preset.verify?.(jsonRequest(`${body} `, { headers: svixHeaders(sign(body)) }))).toBe(
      false,
    );
    const stale = NOW - 301;
    expect(
      preset.verify?.(
        jsonRequest(body, { headers: svixHeaders(sign(body, SECRET, stale), stale) }),
      ),
    ).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: 'not base64 !' }, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => factory(options as never)).toThrow(ConfigError);
    expect(() => factory(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

describe("the providers' own SDKs as judges", () => {
  it("@clerk/backend's verifyWebhook accepts the delivery the clerk preset accepts, and refuses the forged one with it", async () => {
    const preset = clerk({ secret: SECRET });
    const delivery = (signature: string) =>
      new Request('https://example.com/webhooks/clerk', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...svixHeaders(signature) },
        body: userCreated,
      });
    const event = await verifyWebhook(delivery(sign(userCreated)), { signingSecret: SECRET });
    expect(event.type).toBe('user.created');
    expect(
      preset.verify?.(jsonRequest(userCreated, { headers: svixHeaders(sign(userCreated)) })),
    ).toBe(true);

    const forged = sign(userCreated, OTHER);
    await expect(verifyWebhook(delivery(forged), { signingSecret: SECRET })).rejects.toThrow();
    expect(preset.verify?.(jsonRequest(userCreated, { headers: svixHeaders(forged) }))).toBe(false);
  });

  it("resend's webhooks.verify accepts the delivery the resend preset accepts, and refuses the forged one with it", () => {
    const preset = resend({ secret: SECRET });
    const sdk = new Resend('re_test_key');
    const verify = (signature: string) =>
      sdk.webhooks.verify({
        payload: emailDelivered,
        headers: { id: ID, timestamp: String(NOW), signature },
        webhookSecret: SECRET,
      });
    expect(verify(sign(emailDelivered))).toMatchObject({ type: 'email.delivered' });
    expect(
      preset.verify?.(jsonRequest(emailDelivered, { headers: svixHeaders(sign(emailDelivered)) })),
    ).toBe(true);

    const forged = sign(emailDelivered, OTHER);
    expect(() => verify(forged)).toThrow();
    expect(preset.verify?.(jsonRequest(emailDelivered, { headers: svixHeaders(forged) }))).toBe(
      false,
    );
  });
});
