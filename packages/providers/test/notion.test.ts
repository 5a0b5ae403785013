import { createHmac } from 'node:crypto';
import { ConfigError, type HttpRequest } from '@webhook-idempotency/core';
import { notion } from '../src';
import { jsonRequest } from './helpers';

// Notion signs no example we could find: no SDK or vector judges this preset. The digest below is
// the documented formula, computed with node:crypto: `sha256=` + hex HMAC-SHA256(token, rawBody).
const TOKEN = 'secret_notion_verification_token_1';
const event = (attempt = 1) =>
  JSON.stringify({
    id: '367cba44-b6f3-4c92-81e7-6a2e9659efd4',
    timestamp: '2026-12-01T10:00:00.000Z',
    workspace_id: 'w1',
    subscription_id: 's1',
    integration_id: 'i1',
    type: 'page.created',
    entity: { id: 'p1', type: 'page' },
    attempt_number: attempt,
  });
const sign = (text: string, token = TOKEN) =>
  `sha256=${createHmac('sha256', token).update(text).digest('hex')}`;
const signed = (text: string, signature = sign(text)) =>
  jsonRequest(text, { headers: { 'x-notion-signature': signature } });

describe('notion preset', () => {
  const preset = notion({ verificationToken: TOKEN });

  it('keys on the event id, names the event, keeps 7 days', () => {
    expect(preset).toMatchObject({ provider: 'notion', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(signed(event()))).toBe('367cba44-b6f3-4c92-81e7-6a2e9659efd4');
    expect(preset.eventType(signed(event()))).toBe('page.created');
  });

  it('accepts the documented signature; refuses an altered body, another token, a bare digest or none', async () => {
    expect(await preset.verify?.(signed(event()))).toBe(true);
    expect(await preset.verify?.(signed(event(2), sign(event())))).toBe(false);
    expect(await preset.verify?.(signed(event(), sign(event(), 'other')))).toBe(false);
    expect(await preset.verify?.(signed(event(), sign(event()).slice(7)))).toBe(false);
    expect(await preset.verify?.(jsonRequest(event()))).toBe(false);
  });

  it('a retry that raised attempt_number has the same fingerprint; another event does not', () => {
    const first = preset.fingerprint?.(signed(event(1)));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(preset.fingerprint?.(signed(event(3)))).toBe(first);
    expect(preset.fingerprint?.(signed(event().replace('page.created', 'page.deleted')))).not.toBe(
      first,
    );
  });

  it('hands the unsigned verification token to onVerificationToken and answers it, never as a delivery', async () => {
    const seen: string[] = [];
    const withCallback = notion({
      verificationToken: TOKEN,
      onVerificationToken: (token) => {
        seen.push(token);
      },
    });
    const verification = jsonRequest(JSON.stringify({ verification_token: 'secret_new_token' }));
    expect(await withCallback.verify?.(verification)).toBe(true);
    expect(seen).toEqual(['secret_new_token']);
    expect(withCallback.handshake?.(verification)).toMatchObject({ status: 200 });
    expect(withCallback.handshake?.(signed(event()))).toBeUndefined();
    // Anything else shaped like it is a delivery, which needs a signature.
    const extra = jsonRequest(JSON.stringify({ verification_token: 't', id: 'x' }));
    const signedLookalike = signed(JSON.stringify({ verification_token: 't' }), 'sha256=00');
    for (const request of [extra, signedLookalike]) {
      expect(await withCallback.verify?.(request)).toBe(false);
      expect(withCallback.handshake?.(request)).toBeUndefined();
    }
    expect(seen).toEqual(['secret_new_token']);
    // Without the callback the verification is an unsigned request: refused.
    expect(await preset.verify?.(verification)).toBe(false);
    expect(preset.handshake?.(verification)).toBeUndefined();
  });

  it('a callback that fails refuses the verification (Notion can send it again)', async () => {
    const failing = notion({
      verificationToken: TOKEN,
      onVerificationToken: async () => {
        throw new Error('store down');
      },
    });
    const verification: HttpRequest = jsonRequest(
      JSON.stringify({ verification_token: 'secret_t' }),
    );
    await expect(Promise.resolve(failing.verify?.(verification))).resolves.toBe(false);
  });

  it('takes several tokens (a subscription recreated)', async () => {
    const both = notion({ verificationToken: ['secret_old', TOKEN] });
    expect(await both.verify?.(signed(event(), sign(event(), 'secret_old')))).toBe(true);
    expect(await both.verify?.(signed(event()))).toBe(true);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'verificationToken'],
    [{ verificationToken: '' }, 'verificationToken'],
    [{ verificationToken: 'x', onVerificationToken: 'log' }, 'onVerificationToken'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => notion(options as never)).toThrow(ConfigError);
    expect(() => notion(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
