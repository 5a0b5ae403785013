/**
 * docs/hmac.md: each provider's configuration accepts a delivery signed as the provider documents
 * it (the digest computed here with node:crypto, not with the library), refuses a forged or altered
 * one, and keys it where the page says.
 */
import { createHmac } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import * as page from '../src/hmac-page';
import { jsonRequest } from './helpers/requests';

Object.assign(process.env, {
  HEROKU_WEBHOOK_SECRET: 'heroku webhook secret',
  AFTERSHIP_WEBHOOK_SECRET: 'aftership webhook secret',
  CUSTOMERIO_SIGNING_KEY: 'cio new signing key',
  CUSTOMERIO_OLD_SIGNING_KEY: 'cio old signing key',
});

const digest = (secret: string, text: string, encoding: 'hex' | 'base64') =>
  createHmac('sha256', secret).update(text, 'utf8').digest(encoding);

/** A JSON request carrying exactly `text` as its body. */
function request(text: string, headers: Record<string, string>): HttpRequest {
  return { ...jsonRequest({}, headers), rawBody: Buffer.from(text) };
}

const heroku = (attempt: string) => ({
  action: 'update',
  resource: 'release',
  data: { id: 'rel-1', version: 12 },
  webhook_metadata: {
    attempt: { id: attempt },
    delivery: { id: 'dlv-7' },
    event: { id: 'evt-3', include: 'api:release' },
    webhook: { id: 'wh-1' },
  },
});

describe('Heroku (base64 HMAC of the body, key in webhook_metadata)', () => {
  const preset = page.herokuPreset();
  const sign = (text: string, secret = 'heroku webhook secret') =>
    request(text, { 'heroku-webhook-hmac-sha256': digest(secret, text, 'base64') });

  it('accepts the genuine delivery, refuses a forged or altered one, keys it by the delivery id', () => {
    const text = JSON.stringify(heroku('att-1'));
    expect(preset.verify?.(sign(text))).toBe(true);
    expect(preset.verify?.(sign(text, 'another secret'))).toBe(false);
    expect(preset.verify?.({ ...sign(text), rawBody: Buffer.from(text.replace('12', '13')) })).toBe(
      false,
    );
    expect(preset.key(sign(text))).toBe('dlv-7');
  });

  it('gives a retry (a new attempt id) the fingerprint of the first attempt, and another body another', () => {
    const first = preset.fingerprint?.(sign(JSON.stringify(heroku('att-1'))));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(preset.fingerprint?.(sign(JSON.stringify(heroku('att-2'))))).toBe(first);
    const changed = { ...heroku('att-1'), data: { id: 'rel-1', version: 13 } };
    expect(preset.fingerprint?.(sign(JSON.stringify(changed)))).not.toBe(first);
  });
});

describe('AfterShip (base64 HMAC of the body, key event_id)', () => {
  const preset = page.aftershipPreset();
  const text = JSON.stringify({
    event: 'tracking_update',
    event_id: 'as-evt-1',
    msg: { id: 't1' },
  });

  it('accepts the genuine delivery, refuses a forged one, keys it by event_id', () => {
    const signed = request(text, {
      'aftership-hmac-sha256': digest('aftership webhook secret', text, 'base64'),
    });
    expect(preset.verify?.(signed)).toBe(true);
    expect(preset.key(signed)).toBe('as-evt-1');
    const forged = request(text, { 'aftership-hmac-sha256': digest('guess', text, 'base64') });
    expect(preset.verify?.(forged)).toBe(false);
    expect(preset.verify?.(request(text, {}))).toBe(false);
  });
});

describe('Customer.io (hex HMAC of "v0:<timestamp>:<body>", two signing keys)', () => {
  // Signed when each row runs, so that time spent before it (a loaded machine) does not move a
  // stamp 301 s ahead back inside the window.
  const now = () => Math.floor(Date.now() / 1000);
  const text = JSON.stringify({ event_id: '01E4C4CT6YDC7Y5M7FE1GWWPQJ', metric: 'sent' });
  const sign = (secret: string, stamp = now(), body = text) =>
    request(body, {
      'x-cio-timestamp': String(stamp),
      'x-cio-signature': digest(secret, `v0:${stamp}:${text}`, 'hex'),
    });

  it.each([
    ['the new key', () => sign('cio new signing key'), true],
    ['the old key, during the rotation', () => sign('cio old signing key'), true],
    ['another key', () => sign('a guess'), false],
    ['a timestamp over 5 minutes old', () => sign('cio new signing key', now() - 301), false],
    ['a timestamp over 5 minutes ahead', () => sign('cio new signing key', now() + 301), false],
    [
      'an altered body',
      () => sign('cio new signing key', now(), text.replace('sent', 'opened')),
      false,
    ],
  ])('signed with %s', (_name, signed, expected) => {
    expect(page.customerioPreset().verify?.(signed())).toBe(expected);
  });

  it('keys it by event_id', () => {
    expect(page.customerioPreset().key(sign('cio new signing key'))).toBe(
      '01E4C4CT6YDC7Y5M7FE1GWWPQJ',
    );
  });

  it("signs as the test kit's hmac signer does, given the same options", () => {
    const options = { ...customerio(), secret: 'cio new signing key' };
    const delivery = signers.hmac(options).event({ event_id: 'e-kit', metric: 'sent' });
    const stamp = delivery.headers['x-cio-timestamp']!;
    expect(delivery.headers['x-cio-signature']).toBe(
      digest('cio new signing key', `v0:${stamp}:${delivery.body.toString()}`, 'hex'),
    );
    const preset = providers.hmac(options);
    expect(preset.verify?.(request(delivery.body.toString(), { ...delivery.headers }))).toBe(true);
    expect(preset.key(request(delivery.body.toString(), { ...delivery.headers }))).toBe('e-kit');
  });
});

function customerio() {
  return {
    provider: 'customerio',
    signatureHeader: 'x-cio-signature',
    timestamp: { header: 'x-cio-timestamp' },
    signedPayload: (r: { timestamp: string | undefined; body: Buffer }) => [
      `v0:${r.timestamp}:`,
      r.body,
    ],
    key: { json: 'event_id' },
    retentionDays: 8,
  };
}
