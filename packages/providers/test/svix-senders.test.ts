/**
 * The senders of Standard Webhooks the package names (OpenAI…): each is the Standard Webhooks
 * preset under its own name, retention and secret, so one table drives them all. The signatures
 * are made by the `standardwebhooks` reference library, and each provider's own SDK judges them:
 * it must accept what the preset accepts and refuse what the preset refuses.
 */
import { webhooks as polarWebhooks } from '@polar-sh/sdk/2026-10';
import { Webhooks as DodoWebhooks } from 'dodopayments/resources/webhooks/webhooks';
import { Webhooks as OpenAIWebhooks } from 'openai/resources/webhooks/webhooks';
import { validateWebhook } from 'replicate';
import { Webhook } from 'standardwebhooks';
import { Webhook as Svix } from 'svix';
import { ConfigError } from '@webhook-idempotency/core';
import {
  dodopayments,
  openai,
  polar,
  replicate,
  stytch,
  supabaseAuthHooks,
  type SvixSenderOptions,
  type TypedPreset,
} from '../src';
import { clockAt, jsonRequest } from './helpers';

// The SDKs check the timestamp against the real clock: the deliveries here are signed now.
const NOW = Math.floor(Date.now() / 1000);
const whsec = (text: string) => `whsec_${Buffer.from(text).toString('base64')}`;
const ID = 'msg_2yZwUhtgs5Ai8T9yRQJXA';

/** One sender: its factory, its header prefix, retention, secrets, a body, and its SDK as judge. */
interface Sender {
  readonly factory: (options: SvixSenderOptions) => TypedPreset;
  readonly prefix: 'webhook' | 'svix';
  readonly retentionDays: number;
  /** The receipts' provider name, when it is not the factory's. */
  readonly provider?: string;
  readonly secret: string;
  readonly other: string;
  /** The secret as the reference library takes it (base64 after `whsec_`). */
  readonly libraryKey?: (secret: string) => string;
  readonly body: string;
  readonly eventType: string | undefined;
  /** The provider's SDK: true when it accepts the delivery under `secret`. */
  readonly judge: (
    body: string,
    headers: Record<string, string>,
    secret: string,
  ) => Promise<boolean>;
}

/** True when `verify` resolves (or returns true) without throwing. */
async function passes(verify: () => unknown): Promise<boolean> {
  try {
    return (await verify()) !== false;
  } catch {
    return false;
  }
}

const SENDERS: Record<string, Sender> = {
  openai: {
    factory: openai,
    prefix: 'webhook',
    retentionDays: 30,
    secret: whsec('openai-webhook-secret-of-32-byte'),
    other: whsec('another-openai-secret-32-bytes!!'),
    body: JSON.stringify({
      id: 'evt_685343a1381c819085d44c354e1b330e',
      object: 'event',
      created_at: NOW,
      type: 'response.completed',
      data: { id: 'resp_abc123' },
    }),
    eventType: 'response.completed',
    judge: (body, headers, secret) =>
      passes(() => new OpenAIWebhooks({} as never).unwrap(body, headers, secret)),
  },
  replicate: {
    factory: replicate,
    prefix: 'webhook',
    retentionDays: 30,
    secret: whsec('replicate-signing-secret-32-byte'),
    other: whsec('another-replicate-secret-32-byte'),
    body: JSON.stringify({
      id: 'ufawqhfynnddngldkgtslldrkq',
      model: 'replicate/hello-world',
      status: 'succeeded',
      input: { text: 'Alice' },
      output: 'hello Alice',
    }),
    eventType: 'succeeded',
    judge: (body, headers, secret) =>
      passes(() =>
        validateWebhook({
          id: headers['webhook-id']!,
          timestamp: headers['webhook-timestamp']!,
          signature: headers['webhook-signature']!,
          body,
          secret,
        }),
      ),
  },
  stytch: {
    factory: stytch,
    prefix: 'svix',
    retentionDays: 30,
    secret: whsec('stytch-svix-signing-secret-32byt'),
    other: whsec('another-stytch-secret-of-32-byte'),
    body: JSON.stringify({
      project_id: 'project-test-11111111-1111-1111-1111-111111111111',
      event_id: 'event-test-22222222-2222-2222-2222-222222222222',
      action: 'CREATE',
      object_type: 'user',
      source: 'DIRECT',
      id: 'user-test-33333333-3333-3333-3333-333333333333',
      timestamp: '2026-12-06T10:00:00.000000Z',
    }),
    eventType: 'direct.user.create',
    judge: (body, headers, secret) => passes(() => new Svix(secret).verify(body, headers)),
  },
  polar: {
    factory: polar,
    prefix: 'webhook',
    retentionDays: 30,
    // Polar's secrets are not base64: the HMAC key is the secret's own bytes.
    secret: 'polar_whs_8mJ2kQvX4tLr9NcWp7ZsYd3HfBg6Ae1U',
    other: 'polar_whs_another-secret-of-polar-kind',
    libraryKey: (secret) => Buffer.from(secret, 'utf8').toString('base64'),
    body: JSON.stringify({
      type: 'order.paid',
      timestamp: '2026-12-06T10:00:00.000Z',
      data: { id: 'b3a2c1d0-1111-2222-3333-444455556666', status: 'paid' },
    }),
    eventType: 'order.paid',
    judge: (body, headers, secret) =>
      passes(() => polarWebhooks.validateEvent(body, headers, secret)),
  },
  dodopayments: {
    factory: dodopayments,
    prefix: 'webhook',
    retentionDays: 30,
    secret: whsec('dodo-payments-webhook-key-32byte'),
    other: whsec('another-dodo-webhook-key-32bytes'),
    body: JSON.stringify({
      business_id: 'bus_kit',
      type: 'payment.succeeded',
      timestamp: '2026-12-06T10:00:00Z',
      data: { payload_type: 'Payment', payment_id: 'pay_kit' },
    }),
    eventType: 'payment.succeeded',
    judge: (body, headers, secret) =>
      passes(() => new DodoWebhooks({} as never).unwrap(body, { headers, key: secret })),
  },
  supabaseAuthHooks: {
    factory: supabaseAuthHooks,
    prefix: 'webhook',
    retentionDays: 7,
    provider: 'supabase-auth-hooks',
    // As Supabase shows a hook's secret: `v1,` before the `whsec_…`.
    secret: `v1,${whsec('supabase-send-email-hook-secret!')}`,
    other: `v1,${whsec('another-supabase-hook-secret-32b')}`,
    libraryKey: (secret) => secret.replace(/^v1,/, ''),
    body: JSON.stringify({
      user: { id: '8484b834-f29e-4af2-bf42-80644d154f76', email: 'valid.email@supabase.io' },
      email_data: { token: '305805', email_action_type: 'signup', redirect_to: '' },
    }),
    eventType: undefined,
    // The check hook handlers make with the reference library, `v1,whsec_` removed.
    judge: (body, headers, secret) =>
      passes(() => new Webhook(secret.replace('v1,whsec_', '')).verify(body, headers)),
  },
};

describe.each(Object.entries(SENDERS))('%s preset', (name, sender) => {
  const key = (secret: string) => sender.libraryKey?.(secret) ?? secret;
  const sign = (secret = sender.secret, at = NOW, body = sender.body) =>
    new Webhook(key(secret)).sign(ID, new Date(at * 1000), body);
  const headers = (signature: string, at = NOW): Record<string, string> => ({
    [`${sender.prefix}-id`]: ID,
    [`${sender.prefix}-timestamp`]: String(at),
    [`${sender.prefix}-signature`]: signature,
  });
  const request = (signature: string, at = NOW, body = sender.body) =>
    jsonRequest(body, { headers: headers(signature, at) });
  const preset = sender.factory({ secret: sender.secret, clock: clockAt(NOW) });

  it('is named after its provider, keyed on the message id, kept for its retry window', () => {
    expect(preset).toMatchObject({
      provider: sender.provider ?? name,
      needsRawBody: true,
      retentionDays: sender.retentionDays,
    });
    expect(preset.key(request('v1,x'))).toBe(ID);
    expect(preset.eventType?.(request(sign()))).toBe(sender.eventType);
  });

  it.each([
    ['genuine', () => request(sign()), true],
    ['signed with another secret', () => request(sign(sender.other)), false],
    ['with an altered body', () => request(sign(), NOW, `${sender.body} `), false],
    ['signed 301 s ago', () => request(sign(sender.secret, NOW - 301), NOW - 301), false],
    ['signed 301 s ahead', () => request(sign(sender.secret, NOW + 301), NOW + 301), false],
    [
      'without a signature',
      () => jsonRequest(sender.body, { headers: { [`${sender.prefix}-id`]: ID } }),
      false,
    ],
  ] as const)('a delivery %s: verified %s', async (_label, make, verified) => {
    expect(await preset.verify?.(make())).toBe(verified);
  });

  it("the provider's SDK accepts the delivery the preset accepts, and refuses the forged one with it", async () => {
    const genuine = sign();
    const forged = sign(sender.other);
    expect(await sender.judge(sender.body, headers(genuine), sender.secret)).toBe(true);
    expect(await preset.verify?.(request(genuine))).toBe(true);
    expect(await sender.judge(sender.body, headers(forged), sender.secret)).toBe(false);
    expect(await preset.verify?.(request(forged))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => sender.factory(options as never)).toThrow(ConfigError);
    expect(() => sender.factory(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

describe('polar: the secret as Polar keys it', () => {
  const sign = (key: Buffer) =>
    new Webhook(key.toString('base64')).sign(ID, new Date(NOW * 1000), SENDERS.polar!.body);
  const headers = (signature: string) => ({
    'webhook-id': ID,
    'webhook-timestamp': String(NOW),
    'webhook-signature': signature,
  });
  const judge = (secret: string, signature: string) =>
    SENDERS.polar!.judge(SENDERS.polar!.body, headers(signature), secret);
  const verify = (secret: string, signature: string) =>
    polar({ secret, clock: clockAt(NOW) }).verify?.(
      jsonRequest(SENDERS.polar!.body, { headers: headers(signature) }),
    );

  it('refuses what a preset decoding the secret as base64 would sign, as the SDK does', async () => {
    const secret = 'polar_whs_c2VjcmV0';
    const decoded = Buffer.from('c2VjcmV0', 'base64');
    expect(await judge(secret, sign(decoded))).toBe(false);
    expect(await verify(secret, sign(decoded))).toBe(false);
  });

  it('tries a whsec_ base64 secret both ways, as the SDK does: raw bytes and decoded key', async () => {
    const secret = whsec('polar-standard-webhooks-key-32by');
    for (const key of [Buffer.from(secret, 'utf8'), Buffer.from(secret.slice(6), 'base64')]) {
      expect(await judge(secret, sign(key))).toBe(true);
      expect(await verify(secret, sign(key))).toBe(true);
    }
  });
});

describe('supabaseAuthHooks: the secret with or without its v1, prefix', () => {
  const secret = whsec('supabase-send-sms-hook-secret-32');
  const body = JSON.stringify({ user: { id: 'u1' }, sms: { otp: '561166' } });
  const signature = new Webhook(secret).sign(ID, new Date(NOW * 1000), body);
  const request = jsonRequest(body, {
    headers: { 'webhook-id': ID, 'webhook-timestamp': String(NOW), 'webhook-signature': signature },
  });

  it.each([`v1,${secret}`, secret])('%s verifies the hook call', async (given) => {
    expect(await supabaseAuthHooks({ secret: given, clock: clockAt(NOW) }).verify?.(request)).toBe(
      true,
    );
  });
});
