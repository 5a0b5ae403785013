import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { bitbucket } from '../src';
import { jsonRequest } from './helpers';

// No verifier ships for Bitbucket Cloud webhooks; the judge is Atlassian's documented formula
// ("Manage webhooks", secure webhooks): X-Hub-Signature is `sha256=` and the hex HMAC-SHA256 of
// the body under the webhook's secret.
const SECRET = 'bitbucket webhook secret';
const BODY = JSON.stringify({
  push: { changes: [{ new: { name: 'main', type: 'branch' } }] },
  repository: { full_name: 'team/repo', uuid: '{2b5a}' },
});
const sign = (body = BODY, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const request = (
  signature: string | undefined,
  body = BODY,
  uuid = '8a8c5b1e-3c2f-4f1a-9d2b-6e7f8a9b0c1d',
) =>
  jsonRequest(body, {
    headers: {
      'x-event-key': 'repo:push',
      'x-hook-uuid': '{6e1b7c2d}',
      ...(uuid === '' ? {} : { 'x-request-uuid': uuid }),
      ...(signature === undefined ? {} : { 'x-hub-signature': signature }),
    },
  });

describe('bitbucket preset', () => {
  const preset = bitbucket({ secret: SECRET });

  it('keys on X-Request-UUID', () => {
    expect(preset).toMatchObject({ provider: 'bitbucket', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe('8a8c5b1e-3c2f-4f1a-9d2b-6e7f8a9b0c1d');
    expect(preset.key(request(undefined, BODY, ''))).toBeUndefined();
  });

  it('verifies sha256= hex HMAC of the body, and refuses tampering, another secret or no prefix', () => {
    expect(preset.verify?.(request(sign()))).toBe(true);
    expect(preset.verify?.(request(sign(), BODY.replace('main', 'evil')))).toBe(false);
    expect(preset.verify?.(request(sign(BODY, 'another')))).toBe(false);
    expect(preset.verify?.(request(sign().slice('sha256='.length)))).toBe(false);
    expect(preset.verify?.(request(undefined))).toBe(false);
  });

  it('does not cover X-Request-UUID: the same signed body under another UUID verifies', () => {
    expect(preset.verify?.(request(sign(), BODY, 'another-uuid'))).toBe(true);
  });

  it('throws a ConfigError naming secret', () => {
    expect(() => bitbucket({ secret: '' })).toThrow(ConfigError);
  });
});
