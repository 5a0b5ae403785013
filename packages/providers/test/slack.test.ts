import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { slack } from '../src';
import { clockAt, jsonRequest } from './helpers';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = 1_715_678_400;

const payload = JSON.stringify({
  token: 'XXYYZZ',
  team_id: 'T0001',
  api_app_id: 'A0123456789',
  event: {
    type: 'app_mention',
    user: 'U061F7AUR',
    text: '<@U0LAN0Z89> is it everything a river should be?',
    ts: '1515449522.000016',
    channel: 'C0LAN2Q65',
  },
  type: 'event_callback',
  event_id: 'Ev0ABCDEF12',
  event_time: 1515449522,
});

/** Slack's documented basestring, computed directly: v0:{timestamp}:{raw body}. */
const sign = (timestamp: number, body = payload, secret = SECRET) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

const request = (signature: string | undefined, timestamp: number | string = NOW, body = payload) =>
  jsonRequest(body, {
    headers: {
      'x-slack-request-timestamp': String(timestamp),
      ...(signature === undefined ? {} : { 'x-slack-signature': signature }),
    },
  });

describe('slack preset', () => {
  const preset = slack({ signingSecret: SECRET, clock: clockAt(NOW) });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'slack', needsRawBody: true, retentionDays: 2 });
  });

  describe('key', () => {
    it('is api_app_id:event_id', () => {
      expect(preset.key(request(undefined))).toBe('A0123456789:Ev0ABCDEF12');
    });

    it('is undefined without either part', () => {
      expect(preset.key(jsonRequest({ api_app_id: 'A0123456789' }))).toBeUndefined();
      expect(preset.key(jsonRequest({ event_id: 'Ev0ABCDEF12' }))).toBeUndefined();
    });
  });

  describe('pass-through', () => {
    it('lets url_verification through, guards event callbacks', () => {
      const challenge = {
        token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
        type: 'url_verification',
      };
      expect(preset.passThrough?.(jsonRequest(challenge))).toBe(true);
      expect(preset.passThrough?.(request(undefined))).toBe(false);
    });
  });

  describe('verify', () => {
    it('accepts the v0 signature over the timestamp and raw body', () => {
      expect(preset.verify?.(request(sign(NOW)))).toBe(true);
    });

    it('accepts within five minutes either way, rejects beyond', () => {
      expect(preset.verify?.(request(sign(NOW - 300), NOW - 300))).toBe(true);
      expect(preset.verify?.(request(sign(NOW - 301), NOW - 301))).toBe(false);
      expect(preset.verify?.(request(sign(NOW + 301), NOW + 301))).toBe(false);
    });

    it('rejects a wrong secret', () => {
      expect(preset.verify?.(request(sign(NOW, payload, 'another-secret')))).toBe(false);
    });

    it('rejects a tampered body', () => {
      expect(
        preset.verify?.(request(sign(NOW), NOW, payload.replace('Ev0ABCDEF12', 'Ev0ABCDEF13'))),
      ).toBe(false);
    });

    it('rejects a signature made for another timestamp', () => {
      expect(preset.verify?.(request(sign(NOW - 1), NOW))).toBe(false);
    });

    it.each([
      ['missing', undefined],
      ['without v0=', sign(NOW).slice(3)],
      ['v1=', sign(NOW).replace('v0=', 'v1=')],
      ['truncated', sign(NOW).slice(0, -1)],
    ])('rejects a signature that is %s', (_label, signature) => {
      expect(preset.verify?.(request(signature))).toBe(false);
    });

    it('rejects a missing or garbled timestamp', () => {
      expect(
        preset.verify?.(jsonRequest(payload, { headers: { 'x-slack-signature': sign(NOW) } })),
      ).toBe(false);
      expect(preset.verify?.(request(sign(NOW), '1715678400.5'))).toBe(false);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'signingSecret'],
      [{ signingSecret: '' }, 'signingSecret'],
      [{ signingSecret: SECRET, toleranceSeconds: Infinity }, 'toleranceSeconds'],
      [{ signingSecret: SECRET, clock: {} }, 'clock'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => slack(options as never)).toThrow(ConfigError);
      expect(() => slack(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
