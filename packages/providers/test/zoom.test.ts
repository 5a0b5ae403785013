import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { zoom } from '../src';
import { jsonRequest } from './helpers';

// Zoom's documented scheme (developers.zoom.us/docs/api/webhooks, "Verify webhook events" and
// "Validate your webhook endpoint"; zoom/webhook-sample): x-zm-signature is "v0=" + hex
// HMAC-SHA256 of "v0:{x-zm-request-timestamp}:{raw body}" under the Secret Token, and the URL
// validation answer's encryptedToken the hex HMAC-SHA256 of plainToken. No SDK judges byte for
// byte (@zoom/rivet signs JSON.stringify of the parsed body), so these vectors keep Zoom's spacing.
const SECRET = 'zoom-secret-token-of-ours';
const STAMP = '1733306400';
const started = `{"event": "meeting.started", "event_ts": 1733306400123, "payload": {"account_id": "AcC0unt", "object": {"id": "85746065", "uuid": "4444AAAiAAAAAiAiAiiAii==", "topic": "Standup"}}}`;
const joined = (user: string) =>
  `{"event":"meeting.participant_joined","event_ts":1733306400500,"payload":{"account_id":"AcC0unt","object":{"id":"85746065","participant":{"user_id":"${user}"}}}}`;
const validation = `{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1733306400999,"event":"endpoint.url_validation"}`;

const sign = (body: string, stamp = STAMP, secret = SECRET) =>
  `v0=${createHmac('sha256', secret).update(`v0:${stamp}:${body}`).digest('hex')}`;
const request = (body: string, signature: string | undefined, stamp = STAMP) =>
  jsonRequest(body, {
    headers: {
      'x-zm-request-timestamp': stamp,
      ...(signature === undefined ? {} : { 'x-zm-signature': signature }),
    },
  });

describe('zoom preset', () => {
  const preset = zoom({ secretToken: SECRET });

  it('describes itself and keys on the event, its event_ts and a digest of its payload', () => {
    expect(preset).toMatchObject({ provider: 'zoom', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(started, undefined))).toMatch(
      /^meeting\.started:1733306400123:[0-9a-f]{32}$/,
    );
    // Two participants joining in the same millisecond are two events, not one.
    const alice = preset.key(request(joined('alice'), undefined));
    const bob = preset.key(request(joined('bob'), undefined));
    expect(alice).toMatch(/^meeting\.participant_joined:1733306400500:/);
    expect(bob).not.toBe(alice);
    // Spacing and key order do not change the key: a re-serialised retry is the same event.
    const compact = JSON.stringify(JSON.parse(started));
    expect(preset.key(request(compact, undefined))).toBe(preset.key(request(started, undefined)));
    expect(
      preset.key(request('{"event":"meeting.started","payload":{}}', undefined)),
    ).toBeUndefined();
  });

  it('fingerprints event, event_ts and payload only: a retry with a new download_token is the same delivery', () => {
    const recording = (token: string) =>
      JSON.stringify({
        event: 'recording.completed',
        event_ts: 1733306400777,
        payload: { account_id: 'AcC0unt', object: { id: 1, uuid: 'u' } },
        download_token: token,
      });
    const first = preset.fingerprint?.(request(recording('tok-1'), undefined));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(preset.fingerprint?.(request(recording('tok-2'), undefined))).toBe(first);
    expect(preset.key(request(recording('tok-2'), undefined))).toBe(
      preset.key(request(recording('tok-1'), undefined)),
    );
  });

  it('accepts the documented signature and refuses a tampered body, another secret or timestamp', () => {
    expect(preset.verify?.(request(started, sign(started)))).toBe(true);
    expect(preset.verify?.(request(started.replace('Standup', 'Retro'), sign(started)))).toBe(
      false,
    );
    expect(preset.verify?.(request(started, sign(started, STAMP, 'another secret')))).toBe(false);
    expect(preset.verify?.(request(started, sign(started), '1733306401'))).toBe(false);
    expect(preset.verify?.(request(started, sign(started).slice(3)))).toBe(false);
    expect(preset.verify?.(request(started, undefined))).toBe(false);
  });

  it('answers a verified URL validation with plainToken and its encryptedToken, and nothing else', () => {
    const challenge = request(validation, sign(validation));
    expect(preset.verify?.(challenge)).toBe(true);
    const answer = preset.handshake?.(challenge);
    expect(answer?.status).toBe(200);
    expect(answer?.headers['content-type']).toContain('application/json');
    expect(JSON.parse(answer?.body.toString() ?? '')).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
    expect(preset.handshake?.(request(started, sign(started)))).toBeUndefined();
    // A validation it cannot answer is refused, never taken for a delivery.
    const noToken = '{"payload":{},"event":"endpoint.url_validation"}';
    expect(preset.handshake?.(request(noToken, sign(noToken)))?.status).toBe(400);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secretToken'],
    [{ secretToken: '' }, 'secretToken'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => zoom(options as never)).toThrow(ConfigError);
    expect(() => zoom(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
