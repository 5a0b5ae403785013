/**
 * Telnyx, judged by its own SDK's verifier (`telnyx/lib/webhooks`, `TelnyxWebhook.verify`) on
 * requests signed here with `node:crypto`: what it accepts the preset accepts, what it refuses the
 * preset refuses. The SDK reads the real clock, so the judged requests are signed now.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { TelnyxWebhook } from 'telnyx/lib/webhooks';
import { telnyx } from '../src';
import { clockAt, jsonRequest } from './helpers';

const pair = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const base64Of = (key: KeyObject) =>
  key.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const PUBLIC_KEY = base64Of(pair.publicKey);

const body = JSON.stringify({
  data: {
    event_type: 'message.received',
    id: 'b301ed3f-1490-491f-995f-6e64e69674d4',
    occurred_at: '2026-12-06T10:00:00.000+00:00',
    payload: { id: '40385f64-5717-4562-b3fc-2c963f66afa6', text: 'hi' },
    record_type: 'event',
  },
  meta: { attempt: 1, delivered_to: 'https://example.com/webhooks/telnyx' },
});

/** What Telnyx sends: base64 Ed25519 over `timestamp|body`. */
function headers(text: string, stamp: number, key = pair.privateKey): Record<string, string> {
  const signature = sign(null, Buffer.from(`${stamp}|${text}`), key).toString('base64');
  return { 'telnyx-timestamp': String(stamp), 'telnyx-signature-ed25519': signature };
}

const judge = new TelnyxWebhook(PUBLIC_KEY);
const sdkAccepts = (text: string, given: Record<string, string>) =>
  judge.verify(text, given).then(
    () => true,
    () => false,
  );

describe('telnyx preset', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('keys on data.id and reads data.event_type', () => {
    const preset = telnyx({ publicKey: PUBLIC_KEY });
    expect(preset).toMatchObject({ provider: 'telnyx', needsRawBody: true, retentionDays: 7 });
    const request = jsonRequest(body, { headers: headers(body, now()) });
    expect(preset.key(request)).toBe('b301ed3f-1490-491f-995f-6e64e69674d4');
    expect(preset.eventType(request)).toBe('message.received');
    expect(preset.key(jsonRequest('{"data":{}}'))).toBeUndefined();
  });

  it.each([
    ['genuine', body, () => headers(body, now())],
    ['an altered body', body.replace('"hi"', '"ho"'), () => headers(body, now())],
    ['another key', body, () => headers(body, now(), other.privateKey)],
    ['no separator (stamp + body)', body, () => withoutBar(body, now())],
    ['a stamp 301 s old', body, () => headers(body, now() - 301)],
    ['a stamp 301 s ahead', body, () => headers(body, now() + 301)],
    [
      'another stamp than signed',
      body,
      () => ({ ...headers(body, now()), 'telnyx-timestamp': String(now() - 1) }),
    ],
  ])('%s: the preset agrees with TelnyxWebhook.verify', async (_label, text, make) => {
    const given = make();
    const preset = telnyx({ publicKey: PUBLIC_KEY });
    const expected = await sdkAccepts(text, given);
    expect(preset.verify?.(jsonRequest(text, { headers: given }))).toBe(expected);
    expect(expected).toBe(_label === 'genuine');
  });

  it("fingerprints the event without meta: a retry's attempt or failover URL is the same delivery", () => {
    const preset = telnyx({ publicKey: PUBLIC_KEY });
    const parsed = JSON.parse(body);
    const retry = JSON.stringify({
      ...parsed,
      meta: { attempt: 2, delivered_to: 'https://backup.example.com/hooks' },
    });
    const other = JSON.stringify({
      ...parsed,
      data: { ...parsed.data, event_type: 'message.sent' },
    });
    const first = preset.fingerprint?.(jsonRequest(body));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(preset.fingerprint?.(jsonRequest(retry))).toBe(first);
    expect(preset.fingerprint?.(jsonRequest(other))).not.toBe(first);
    expect(preset.fingerprint?.(jsonRequest('[1]'))).toBeUndefined();
  });

  it('takes the old and the new key while both are configured, and a tolerance of its own', () => {
    const NOW = 1_765_000_000;
    const rotated = telnyx({
      publicKey: [base64Of(other.publicKey), PUBLIC_KEY],
      clock: clockAt(NOW),
    });
    expect(rotated.verify?.(jsonRequest(body, { headers: headers(body, NOW) }))).toBe(true);
    expect(
      rotated.verify?.(jsonRequest(body, { headers: headers(body, NOW, other.privateKey) })),
    ).toBe(true);
    const lenient = telnyx({ publicKey: PUBLIC_KEY, clock: clockAt(NOW), toleranceSeconds: 600 });
    expect(lenient.verify?.(jsonRequest(body, { headers: headers(body, NOW - 500) }))).toBe(true);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'publicKey'],
    [{ publicKey: 'a'.repeat(64) }, 'publicKey'], // hex, not base64
    [{ publicKey: PUBLIC_KEY, toleranceSeconds: -1 }, 'toleranceSeconds'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => telnyx(options as never)).toThrow(ConfigError);
    expect(() => telnyx(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

/** A signature of the stamp and body run together, as Discord signs: not Telnyx's scheme. */
function withoutBar(text: string, stamp: number): Record<string, string> {
  const signature = sign(null, Buffer.from(`${stamp}${text}`), pair.privateKey).toString('base64');
  return { 'telnyx-timestamp': String(stamp), 'telnyx-signature-ed25519': signature };
}
