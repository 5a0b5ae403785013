import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { twitch } from '../src';
import { jsonRequest } from './helpers';

// Twitch's documented scheme (dev.twitch.tv/docs/eventsub/handling-webhook-events, "Verifying the
// event message"): HMAC-SHA256 of message id + timestamp + raw body, hex, after `sha256=`.
const SECRET = 'a-subscription-secret-of-our-own';
const ID = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
const STAMP = '2026-12-04T10:00:00.123456789Z';
const NOW_MS = Date.parse('2026-12-04T10:00:30Z');
const follow = JSON.stringify({
  subscription: {
    id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4',
    type: 'channel.follow',
    version: '2',
  },
  event: { user_id: '1234', user_login: 'cool_user', broadcaster_user_id: '1337' },
});
const verification = JSON.stringify({
  challenge: 'pogchamp-kappa-360noscope-vohiyo',
  subscription: { id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4', type: 'channel.follow' },
});

const sign = (body: string, stamp = STAMP, id = ID, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret)
    .update(id + stamp + body)
    .digest('hex')}`;

const request = (
  body: string,
  signature: string | undefined,
  { stamp = STAMP, id = ID, type = 'notification' } = {},
) =>
  jsonRequest(body, {
    headers: {
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-timestamp': stamp,
      'twitch-eventsub-message-type': type,
      ...(signature === undefined ? {} : { 'twitch-eventsub-message-signature': signature }),
    },
  });

describe('twitch preset', () => {
  const preset = twitch({ secret: SECRET, clock: () => NOW_MS });

  it('describes itself and keys on the message id', () => {
    expect(preset).toMatchObject({ provider: 'twitch', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(follow, undefined))).toBe(ID);
    expect(preset.key(request(follow, undefined, { id: '' }))).toBeUndefined();
  });

  it('accepts the documented signature and refuses a tampered body, another secret, another id or timestamp', () => {
    expect(preset.verify?.(request(follow, sign(follow)))).toBe(true);
    expect(preset.verify?.(request(follow.replace('1234', '4321'), sign(follow)))).toBe(false);
    expect(preset.verify?.(request(follow, sign(follow, STAMP, ID, 'another-secret-0')))).toBe(
      false,
    );
    expect(preset.verify?.(request(follow, sign(follow), { id: `${ID}x` }))).toBe(false);
    const other = '2026-12-04T10:00:01.123456789Z';
    expect(preset.verify?.(request(follow, sign(follow), { stamp: other }))).toBe(false);
  });

  it('refuses a message older than 10 minutes (or as far ahead), as Twitch asks against replays', () => {
    const old = '2026-12-04T09:50:29Z';
    expect(preset.verify?.(request(follow, sign(follow, old), { stamp: old }))).toBe(false);
    const recent = '2026-12-04T09:50:31Z';
    expect(preset.verify?.(request(follow, sign(follow, recent), { stamp: recent }))).toBe(true);
    const ahead = '2026-12-04T10:10:31Z';
    expect(preset.verify?.(request(follow, sign(follow, ahead), { stamp: ahead }))).toBe(false);
    for (const bad of ['1733306400', '2026-12-04 10:00:00Z', 'yesterday'])
      expect(preset.verify?.(request(follow, sign(follow, bad), { stamp: bad }))).toBe(false);
  });

  it('answers a verified callback verification with its challenge as text, and nothing else', () => {
    const challenge = request(verification, sign(verification), {
      type: 'webhook_callback_verification',
    });
    expect(preset.verify?.(challenge)).toBe(true);
    expect(preset.handshake?.(challenge)).toEqual({
      status: 200,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      },
      body: Buffer.from('pogchamp-kappa-360noscope-vohiyo'),
    });
    // A verification without a challenge is refused, never taken for a delivery.
    const empty = JSON.stringify({ subscription: {} });
    const noChallenge = request(empty, sign(empty), { type: 'webhook_callback_verification' });
    expect(preset.handshake?.(noChallenge)?.status).toBe(400);
    expect(preset.handshake?.(request(follow, sign(follow)))).toBeUndefined();
    expect(
      preset.handshake?.(request(follow, sign(follow), { type: 'revocation' })),
    ).toBeUndefined();
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
    [{ secret: 'short' }, 'secret'],
    [{ secret: SECRET, toleranceSeconds: -5 }, 'toleranceSeconds'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => twitch(options as never)).toThrow(ConfigError);
    expect(() => twitch(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
