import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { ConfigError } from '@webhook-idempotency/core';
import { hmac } from '../src';
import { clockAt, jsonRequest } from './helpers';

const NOW = 1_715_678_400;
const body = JSON.stringify({ id: 'evt_31', type: 'order.paid', amount: 4200 });

describe('hmac(): a preset from configuration', () => {
  it("configured as GitHub's scheme, accepts what @octokit/webhooks-methods signs and refuses a tampered body", async () => {
    const preset = hmac({
      provider: 'acme',
      secret: 'acme secret',
      signatureHeader: 'x-hub-signature-256',
      prefix: 'sha256=',
      key: 'x-acme-delivery',
      retentionDays: 7,
    });
    const signature = await githubSign('acme secret', body);
    const request = (text: string, sig = signature) =>
      jsonRequest(text, { headers: { 'x-hub-signature-256': sig, 'x-acme-delivery': 'd-1' } });
    expect(preset).toMatchObject({
      provider: 'acme',
      needsRawBody: true,
      retentionDays: 7,
      keyDescription: 'x-acme-delivery header',
    });
    expect(preset.key(request(body))).toBe('d-1');
    expect(preset.verify?.(request(body))).toBe(true);
    expect(preset.verify?.(request(body.replace('4200', '42')))).toBe(false);
    expect(preset.verify?.(request(body, signature.slice('sha256='.length)))).toBe(false); // no prefix
    expect(preset.verify?.(request(body, await githubSign('other', body)))).toBe(false);
  });

  it('signs a timestamp with the body, and refuses a stale or future one before any HMAC', () => {
    const secret = Buffer.from('00ff10ab', 'hex');
    const preset = hmac({
      provider: 'zoomlike',
      secret: '00ff10ab',
      secretEncoding: 'hex',
      signatureHeader: 'x-zm-signature',
      prefix: 'v0=',
      timestamp: { header: 'x-zm-request-timestamp', toleranceSeconds: 300 },
      signedPayload: (r) => [`v0:${r.timestamp}:`, r.body],
      key: (request) => String(request.headers['x-delivery'] ?? '') || undefined,
      retentionDays: 3,
      clock: clockAt(NOW),
    });
    const at = (stamp: number) =>
      `v0=${createHmac('sha256', secret).update(`v0:${stamp}:${body}`).digest('hex')}`;
    const request = (stamp: number, signature = at(stamp)) =>
      jsonRequest(body, {
        headers: {
          'x-zm-signature': signature,
          'x-zm-request-timestamp': String(stamp),
          'x-delivery': 'z-1',
        },
      });
    expect(preset.verify?.(request(NOW))).toBe(true);
    expect(preset.verify?.(request(NOW - 301))).toBe(false);
    expect(preset.verify?.(request(NOW + 301))).toBe(false);
    expect(preset.verify?.(request(NOW + 1, at(NOW)))).toBe(false); // the stamp is signed
    expect(preset.key(request(NOW))).toBe('z-1');
  });

  it('base64 SHA-1 over the URL and the body (a Twilio-shaped scheme)', () => {
    const preset = hmac({
      provider: 'urlsigned',
      secret: 'k',
      signatureHeader: 'x-signature',
      algorithm: 'sha1',
      encoding: 'base64',
      signedPayload: (r) => [`https://api.example.com${r.url}`, r.body],
      key: 'x-id',
      retentionDays: 1,
    });
    const signature = createHmac('sha1', 'k')
      .update(`https://api.example.com/hooks/in?x=1${body}`)
      .digest('base64');
    const request = (url: string) =>
      jsonRequest(body, { url, headers: { 'x-signature': signature, 'x-id': '1' } });
    expect(preset.verify?.(request('/hooks/in?x=1'))).toBe(true);
    expect(preset.verify?.(request('/hooks/in?x=2'))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{ secret: 's', signatureHeader: 'x-s', key: 'x-k', retentionDays: 1 }, 'provider'],
    [{ provider: 'a', signatureHeader: 'x-s', key: 'x-k', retentionDays: 1 }, 'secret'],
    [{ provider: 'a', secret: 's', key: 'x-k', retentionDays: 1 }, 'signatureHeader'],
    [
      { provider: 'a', secret: 's', signatureHeader: 'X-Sig', key: 'x-k', retentionDays: 1 },
      'signatureHeader',
    ],
    [{ provider: 'a', secret: 's', signatureHeader: 'x-s', retentionDays: 1 }, 'key'],
    [{ provider: 'a', secret: 's', signatureHeader: 'x-s', key: 'x-k' }, 'retentionDays'],
    [
      {
        provider: 'a',
        secret: 's',
        signatureHeader: 'x-s',
        key: 'x-k',
        retentionDays: 1,
        algorithm: 'md5',
      },
      'algorithm',
    ],
    [
      {
        provider: 'a',
        secret: 'zz',
        secretEncoding: 'hex',
        signatureHeader: 'x-s',
        key: 'x-k',
        retentionDays: 1,
      },
      'secret',
    ],
    [
      {
        provider: 'a',
        secret: 's',
        signatureHeader: 'x-s',
        key: 'x-k',
        retentionDays: 1,
        timestamp: { header: 'x-t', toleranceSeconds: -1 },
        signedPayload: () => [],
      },
      'toleranceSeconds',
    ],
    // A timestamp that nothing signs: a replay with a fresh stamp would pass its freshness check.
    [
      {
        provider: 'a',
        secret: 's',
        signatureHeader: 'x-s',
        key: 'x-k',
        retentionDays: 1,
        timestamp: { header: 'x-t' },
      },
      'signedPayload',
    ],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => hmac(options as never)).toThrow(ConfigError);
    expect(() => hmac(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
