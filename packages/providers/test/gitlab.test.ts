import { ConfigError } from '@webhook-idempotency/core';
import { gitlab } from '../src';
import { jsonRequest } from './helpers';

const TOKEN = 'a gitlab secret token';
const KEY = '908a6d9e-45fd-46c8-97e6-c4f350f219dd';
const push = JSON.stringify({
  object_kind: 'push',
  ref: 'refs/heads/main',
  total_commits_count: 1,
});

const request = (token: string | undefined, key: string | undefined = KEY) =>
  jsonRequest(push, {
    headers: {
      'x-gitlab-event': 'Push Hook',
      'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
      ...(token === undefined ? {} : { 'x-gitlab-token': token }),
    },
  });

describe('gitlab preset', () => {
  const preset = gitlab({ secretToken: TOKEN });

  it('keys on Idempotency-Key, and has no key without it', () => {
    expect(preset).toMatchObject({ provider: 'gitlab', needsRawBody: false, retentionDays: 7 });
    expect(preset.key(request(TOKEN))).toBe(KEY);
    expect(preset.key(request(TOKEN, ''))).toBeUndefined();
    expect(preset.key(jsonRequest(push, { headers: { 'x-gitlab-token': TOKEN } }))).toBeUndefined();
  });

  it('accepts exactly the secret token', () => {
    expect(preset.verify?.(request(TOKEN))).toBe(true);
    for (const wrong of [undefined, '', 'a gitlab secret toke', `${TOKEN} `, TOKEN.toUpperCase()])
      expect(preset.verify?.(request(wrong))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secretToken'],
    [{ secretToken: '' }, 'secretToken'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => gitlab(options as never)).toThrow(ConfigError);
    expect(() => gitlab(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
