import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { sentry } from '../src';
import { jsonRequest } from './helpers';

// No verifier ships in Sentry's packages; the judge is Sentry's documented formula
// (docs.sentry.io/integrations/integration-platform/webhooks, "Sentry-Hook-Signature"): the hex
// HMAC-SHA256 of the request body under the integration's client secret.
const CLIENT_SECRET = '3b7c2f0e9d6a4c1b8e5f2a7d0c9b6e3f';
const BODY = JSON.stringify({
  action: 'created',
  installation: { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' },
  data: { issue: { id: '1170820242', title: 'TypeError' } },
});
const sign = (body = BODY, secret = CLIENT_SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');
const request = (
  signature: string | undefined,
  body = BODY,
  requestId = 'f6bc3a11-0b6f-4e2e-9d9f-5d6a0c3f9e21',
) =>
  jsonRequest(body, {
    headers: {
      'sentry-hook-resource': 'issue',
      ...(requestId === '' ? {} : { 'request-id': requestId }),
      ...(signature === undefined ? {} : { 'sentry-hook-signature': signature }),
    },
  });

describe('sentry preset', () => {
  const preset = sentry({ clientSecret: CLIENT_SECRET });

  it('keys on the Request-ID header', () => {
    expect(preset).toMatchObject({ provider: 'sentry', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe('f6bc3a11-0b6f-4e2e-9d9f-5d6a0c3f9e21');
    expect(preset.key(request(undefined, BODY, ''))).toBeUndefined();
  });

  it('verifies the documented formula, and refuses tampering or another secret', () => {
    expect(preset.verify?.(request(sign()))).toBe(true);
    expect(preset.verify?.(request(sign(), BODY.replace('TypeError', 'RangeError')))).toBe(false);
    expect(preset.verify?.(request(sign(BODY, 'another')))).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it('does not cover Request-ID: the same signed body under another id verifies', () => {
    expect(preset.verify?.(request(sign(), BODY, 'another-request-id'))).toBe(true);
  });

  it('throws a ConfigError naming clientSecret', () => {
    expect(() => sentry({ clientSecret: '' })).toThrow(ConfigError);
  });
});
