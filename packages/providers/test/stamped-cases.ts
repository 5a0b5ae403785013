/**
 * The behaviours every timestamped-HMAC member shares, as one table of cases per provider: its
 * key, its window both ways, a forged or altered request refused, rotation (old and new secret),
 * and its option errors. Each provider's test gives how a genuine request is signed: by the
 * provider's own SDK where it publishes a signer, else by `node:crypto` from the documented formula.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { jsonRequest } from './helpers';

/** One provider of the family, as its test describes it. */
export interface StampedCase {
  /** The factory, given the secret option (one or several), a clock and maybe a tolerance. */
  readonly build: (options: Record<string, unknown>) => ProviderPreset;
  /** The option holding the secret (`secret`, `signingSecret`…). */
  readonly option: string;
  /** The secret the genuine requests are signed with. */
  readonly secret: string;
  /** The default tolerance, in seconds. */
  readonly tolerance: number;
  /** A genuine body, and the key the preset gives it. */
  readonly body: string;
  readonly key: string;
  /** The signing headers of `body` under `secret` at `at` (milliseconds since the epoch). */
  readonly sign: (at: number, body: string, secret: string) => Promise<Record<string, string>>;
  /** Extra headers every request carries (an id header the key reads). */
  readonly headers?: Record<string, string>;
}

const NOW = Date.parse('2026-12-06T12:00:00.000Z');

/** The describe blocks of the shared behaviours of `c`. */
export function describeStamped(c: StampedCase): void {
  const clock = () => NOW;
  const preset = c.build({ [c.option]: c.secret, clock });
  const request = async (at = NOW, body = c.body, secret = c.secret): Promise<HttpRequest> =>
    jsonRequest(body, {
      headers: { ...c.headers, ...(await c.sign(at, body, secret)) },
    });
  const verifies = async (r: HttpRequest | Promise<HttpRequest>, p = preset) =>
    (await p.verify?.(await r)) === true;

  it('keys a genuine delivery on its id, and gives no key without it', async () => {
    expect(preset.key(await request())).toBe(c.key);
    expect(preset.key(jsonRequest('{}', { headers: {} }))).toBeUndefined();
  });

  it('accepts a genuine delivery a second inside the window either way, and refuses one a second outside', async () => {
    const edge = c.tolerance * 1000;
    expect(await verifies(request())).toBe(true);
    expect(await verifies(request(NOW - edge + 1000))).toBe(true);
    expect(await verifies(request(NOW + edge - 1000))).toBe(true);
    expect(await verifies(request(NOW - edge - 1000))).toBe(false);
    expect(await verifies(request(NOW + edge + 1000))).toBe(false);
  });

  it('refuses an altered body, another secret, no signature and no raw body', async () => {
    const genuine = await request();
    const altered = jsonRequest(`${c.body} `, { headers: genuine.headers });
    expect(await verifies(altered)).toBe(false);
    expect(await verifies(request(NOW, c.body, `${c.secret}-other`))).toBe(false);
    expect(await verifies(jsonRequest(c.body, { headers: c.headers ?? {} }))).toBe(false);
    expect(await verifies({ ...genuine, rawBody: undefined })).toBe(false);
  });

  it('accepts the old and the new secret while both are given, and only those', async () => {
    const next = `${c.secret}-next`;
    const both = c.build({ [c.option]: [c.secret, next], clock });
    const onlyNext = c.build({ [c.option]: next, clock });
    expect(await verifies(request(NOW, c.body, c.secret), both)).toBe(true);
    expect(await verifies(request(NOW, c.body, next), both)).toBe(true);
    expect(await verifies(request(NOW, c.body, c.secret), onlyNext)).toBe(false);
  });

  it('takes toleranceSeconds, and throws a ConfigError naming a bad option', async () => {
    const wide = c.build({ [c.option]: c.secret, clock, toleranceSeconds: c.tolerance * 2 });
    expect(await verifies(request(NOW - c.tolerance * 1500), wide)).toBe(true);
    expect(() => c.build({ [c.option]: '' })).toThrow(ConfigError);
    expect(() => c.build({ [c.option]: 'k', toleranceSeconds: 0 })).toThrow(/toleranceSeconds/);
  });
}
