import { generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import { verifyKey } from 'discord-interactions';
import { ConfigError } from '@webhook-idempotency/core';
import { discord } from '../src';
import { clockAt, jsonRequest } from './helpers';

const NOW = 1_715_678_400;
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
/** The 32 raw bytes of the public key, hex, as the Developer Portal shows it. */
const PUBLIC_KEY = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
const other = generateKeyPairSync('ed25519').privateKey;

const command = JSON.stringify({
  id: '1247856129870041118',
  application_id: '1247850000000000000',
  type: 2,
  token: 'aW50ZXJhY3Rpb246MTI0Nzg1NjEyOTg3MDA0MTExOA',
  data: { id: '1247851111111111111', name: 'pay', type: 1 },
});
const ping = JSON.stringify({
  id: '1247856129870049999',
  application_id: '1',
  type: 1,
  version: 1,
});

/** What Discord sends: hex Ed25519 over the timestamp then the body. */
const sign = (body: string, timestamp = String(NOW), key = privateKey) =>
  ed25519Sign(null, Buffer.from(timestamp + body), key).toString('hex');

const request = (body: string, signature: string | undefined, timestamp = String(NOW)) =>
  jsonRequest(body, {
    headers: {
      'x-signature-timestamp': timestamp,
      ...(signature === undefined ? {} : { 'x-signature-ed25519': signature }),
    },
  });

describe('discord preset', () => {
  const preset = discord({ publicKey: PUBLIC_KEY, clock: clockAt(NOW) });

  it('describes itself and keys on the interaction id', () => {
    expect(preset).toMatchObject({ provider: 'discord', needsRawBody: true, retentionDays: 1 });
    expect(preset.key(request(command, undefined))).toBe('1247856129870041118');
    expect(preset.key(request('{"type":2}', undefined))).toBeUndefined();
  });

  it("accepts what discord-interactions' verifyKey accepts, and refuses what it refuses", async () => {
    const good = sign(command);
    expect(await verifyKey(command, good, String(NOW), PUBLIC_KEY)).toBe(true);
    expect(preset.verify?.(request(command, good))).toBe(true);

    const tampered = command.replace('"pay"', '"refund"');
    expect(await verifyKey(tampered, good, String(NOW), PUBLIC_KEY)).toBe(false);
    expect(preset.verify?.(request(tampered, good))).toBe(false);

    const forged = sign(command, String(NOW), other);
    expect(await verifyKey(command, forged, String(NOW), PUBLIC_KEY)).toBe(false);
    expect(preset.verify?.(request(command, forged))).toBe(false);

    // The timestamp is signed: another one with the same signature is refused by both.
    expect(await verifyKey(command, good, String(NOW + 1), PUBLIC_KEY)).toBe(false);
    expect(preset.verify?.(request(command, good, String(NOW + 1)))).toBe(false);
  });

  it('refuses a correctly signed request outside the tolerance (a replay)', () => {
    const stale = String(NOW - 301);
    expect(preset.verify?.(request(command, sign(command, stale), stale))).toBe(false);
    const lenient = discord({ publicKey: PUBLIC_KEY, clock: clockAt(NOW), toleranceSeconds: 600 });
    expect(lenient.verify?.(request(command, sign(command, stale), stale))).toBe(true);
  });

  it('answers a PING with a PONG itself, and leaves every other interaction to the handler', () => {
    expect(preset.handshake?.(request(ping, sign(ping)))).toEqual({
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      },
      body: Buffer.from('{"type":1}'),
    });
    expect(preset.handshake?.(request(command, sign(command)))).toBeUndefined();
  });

  it.each([
    ['missing', undefined],
    ['not hex', 'z'.repeat(128)],
    ['truncated', 'a'.repeat(127)],
  ])('refuses a signature that is %s', (_label, signature) => {
    expect(preset.verify?.(request(command, signature))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'publicKey'],
    [{ publicKey: 'abc' }, 'publicKey'],
    [{ publicKey: PUBLIC_KEY, toleranceSeconds: 0 }, 'toleranceSeconds'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => discord(options as never)).toThrow(ConfigError);
    expect(() => discord(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
