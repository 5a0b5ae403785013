/** The shared timestamped-HMAC check and the HMAC comparison under it, against digests computed directly with node:crypto. */
import { createHmac } from 'node:crypto';
import { hmacMatches } from '../src/signature';
import { signatureList, timestampedFamily } from '../src/timestamped-family';
import { timestampedHmac, type TimestampedSignature } from '../src/timestamped-hmac';
import { makeRequest } from './helpers';

const KEY = 'shh-a-test-secret';
const NOW = 1_715_678_400;
const BODY = Buffer.from('{"id":"evt_1","amount":2000}', 'utf8');

const hmacOf = (text: string, key: string | Buffer = KEY) =>
  createHmac('sha256', key).update(text).digest();
/** The hex signature of `${stamp}.${BODY}`, the shape most providers use. */
const hexFor = (stamp: string | number, key: string | Buffer = KEY) =>
  hmacOf(`${stamp}.${BODY.toString('utf8')}`, key).toString('hex');

describe('hmacMatches', () => {
  const expected = hmacOf('part-one|part-two');

  it('accepts the hex spelling in either case and the padded base64 spelling', () => {
    const parts = ['part-one|', Buffer.from('part-two')];
    expect(hmacMatches(KEY, parts, [expected.toString('hex')], 'hex')).toBe(true);
    expect(hmacMatches(KEY, parts, [expected.toString('hex').toUpperCase()], 'hex')).toBe(true);
    expect(hmacMatches(KEY, parts, [expected.toString('base64')], 'base64')).toBe(true);
  });

  it('accepts when any signature matches, and rejects none, a wrong one or the wrong encoding', () => {
    const parts = ['part-one|part-two'];
    expect(hmacMatches(KEY, parts, ['00'.repeat(32), expected.toString('hex')], 'hex')).toBe(true);
    expect(hmacMatches(KEY, parts, [], 'hex')).toBe(false);
    expect(hmacMatches(KEY, parts, ['00'.repeat(32)], 'hex')).toBe(false);
    expect(hmacMatches(KEY, parts, [expected.toString('base64')], 'hex')).toBe(false);
    expect(hmacMatches(KEY, parts, [expected.toString('hex')], 'base64')).toBe(false);
    expect(hmacMatches(KEY, parts, [expected.toString('hex').slice(2)], 'hex')).toBe(false);
    expect(hmacMatches('another key', parts, [expected.toString('hex')], 'hex')).toBe(false);
  });

  it('takes the key as bytes too', () => {
    const key = Buffer.from([0, 1, 2, 250, 255]);
    expect(hmacMatches(key, ['x'], [hmacOf('x', key).toString('hex')], 'hex')).toBe(true);
  });
});

describe('timestampedHmac', () => {
  const check = timestampedHmac({
    encoding: 'hex',
    toleranceSeconds: 300,
    now: () => NOW * 1000,
  });
  const input = (
    stamp: string | undefined,
    signatures: string[] = [hexFor(stamp ?? '')],
  ): TimestampedSignature => ({
    stamp,
    signatures,
    signed: (sent) => [`${sent}.`, BODY],
  });

  it('accepts a fresh stamp whose signature matches the HMAC of the signed parts', () => {
    expect(check(KEY, input(String(NOW)))).toBe(true);
  });

  it('accepts a stamp up to the tolerance away, both ways, and rejects one beyond it either way', () => {
    expect(check(KEY, input(String(NOW - 300)))).toBe(true);
    expect(check(KEY, input(String(NOW + 300)))).toBe(true);
    expect(check(KEY, input(String(NOW - 301)))).toBe(false);
    expect(check(KEY, input(String(NOW + 301)))).toBe(false);
  });

  it('reads the clock on every check', () => {
    let now = NOW * 1000;
    const moving = timestampedHmac({
      encoding: 'hex',
      toleranceSeconds: 10,
      now: () => now,
    });
    expect(moving(KEY, input(String(NOW)))).toBe(true);
    now += 11_000;
    expect(moving(KEY, input(String(NOW)))).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['negative', `-${NOW}`],
    ['a decimal', `${NOW}.0`],
    ['padded with spaces', ` ${NOW}`],
    ['in milliseconds (13 digits)', `${NOW}000`],
    ['hex', '0x6643b1c0'],
  ])('rejects a stamp that is %s, whatever the signature', (_label, stamp) => {
    expect(check(KEY, input(stamp))).toBe(false);
  });

  it('rejects a wrong signature, a signature of another stamp, and no signature at all', () => {
    expect(check(KEY, input(String(NOW), ['ab'.repeat(32)]))).toBe(false);
    expect(check(KEY, input(String(NOW), [hexFor(NOW - 1)]))).toBe(false);
    expect(check(KEY, input(String(NOW), []))).toBe(false);
  });

  it('accepts when any of several signatures matches (a rolled secret)', () => {
    expect(check(KEY, input(String(NOW), [hexFor(NOW, 'old secret'), hexFor(NOW)]))).toBe(true);
  });

  it('hands the builder the stamp as sent and as seconds, and builds nothing for a stale stamp', () => {
    const seen: [string, number][] = [];
    const spy = (stamp: string | undefined, signatures: string[]): TimestampedSignature => ({
      stamp,
      signatures,
      signed: (sent, seconds) => {
        seen.push([sent, seconds]);
        return [`${seconds}.`, BODY];
      },
    });
    expect(check(KEY, spy(`0${NOW}`, [hexFor(NOW)]))).toBe(true);
    expect(seen).toEqual([[`0${NOW}`, NOW]]);
    expect(check(KEY, spy(String(NOW - 3600), [hexFor(NOW - 3600)]))).toBe(false);
    expect(check(KEY, spy(String(NOW), []))).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('compares base64 signatures when built for them, with a key given as bytes', () => {
    const key = Buffer.from('c2VjcmV0LWJ5dGVz', 'base64');
    const b64 = timestampedHmac({
      encoding: 'base64',
      toleranceSeconds: 300,
      now: () => NOW * 1000,
    });
    const signature = hmacOf(`msg_1.${NOW}.${BODY.toString('utf8')}`, key).toString('base64');
    const signed = (stamp: string) => [`msg_1.${stamp}.`, BODY];
    expect(b64(key, { stamp: String(NOW), signatures: [signature], signed })).toBe(true);
    expect(
      b64(key, {
        stamp: String(NOW),
        signatures: [Buffer.from(signature, 'base64').toString('hex')],
        signed,
      }),
    ).toBe(false);
  });
});

describe('timestampedHmac with stamps in milliseconds or ISO-8601, and base64url', () => {
  const built = (stamp: 'ms' | 'iso', encoding: 'hex' | 'base64url' = 'hex') =>
    timestampedHmac({ encoding, stamp, toleranceSeconds: 300, now: () => NOW * 1000 });
  const at = (stamp: string, signature = hexFor(stamp)): TimestampedSignature => ({
    stamp,
    signatures: [signature],
    signed: (sent) => [`${sent}.`, BODY],
  });

  it('reads milliseconds, both ways within the tolerance to the millisecond', () => {
    const ms = built('ms');
    expect(ms(KEY, at(`${NOW}000`))).toBe(true);
    expect(ms(KEY, at(`${NOW - 300}000`))).toBe(true);
    expect(ms(KEY, at(`${NOW + 300}000`))).toBe(true);
    expect(ms(KEY, at(String((NOW - 300) * 1000 - 1)))).toBe(false);
    expect(ms(KEY, at(String((NOW + 300) * 1000 + 1)))).toBe(false);
    expect(ms(KEY, at(String(NOW)))).toBe(false);
    expect(ms(KEY, at(`${NOW}000.5`))).toBe(false);
    expect(ms(KEY, at(`-${NOW}000`))).toBe(false);
  });

  it('reads a zoned ISO-8601 date-time, and refuses one without a zone or that is no date', () => {
    const iso = built('iso');
    const stamp = new Date(NOW * 1000).toISOString().replace('.000Z', 'Z');
    expect(iso(KEY, at(stamp))).toBe(true);
    expect(iso(KEY, at(new Date((NOW - 299) * 1000).toISOString()))).toBe(true);
    expect(iso(KEY, at(new Date((NOW + 301) * 1000).toISOString()))).toBe(false);
    expect(iso(KEY, at(stamp.replace('Z', '')))).toBe(false);
    expect(iso(KEY, at(String(NOW)))).toBe(false);
    expect(iso(KEY, at('2024-05-14T99:00:00Z'))).toBe(false);
    // The same instant as NOW (2024-05-14T09:20:00Z) an hour east.
    expect(iso(KEY, at('2024-05-14T10:20:00+01:00'))).toBe(true);
    expect(iso(KEY, at('2024-05-14T10:20:00-01:00'))).toBe(false);
  });

  it('compares unpadded base64url signatures when built for them', () => {
    const b64url = built('ms', 'base64url');
    const stamp = `${NOW}000`;
    const digest = hmacOf(`${stamp}.${BODY.toString('utf8')}`);
    expect(b64url(KEY, at(stamp, digest.toString('base64url')))).toBe(true);
    expect(b64url(KEY, at(stamp, digest.toString('base64')))).toBe(false);
    expect(b64url(KEY, at(stamp, digest.toString('hex')))).toBe(false);
  });
});

describe('a timestamped family row whose header carries several stamp groups', () => {
  // A provider that sends one `t=…,v1=…` group per active secret, space-separated, each with
  // its own stamp: any group may verify, and a group is checked against its own stamp only.
  const row = {
    provider: 'grouped',
    secret: ['secret', 'the secret'] as const,
    toleranceSeconds: 300,
    header: 'x-grouped-signature',
    read: (value: string) => value.split(' ').map(signatureList(',', 't', 'v1')),
    signed: (stamp: string, _: number, rawBody: Buffer) => [`${stamp}.`, rawBody],
    key: [() => 'k', 'nothing'] as const,
    retentionDays: 1,
    eventType: () => undefined,
  };
  const preset = timestampedFamily<object, { secret: string | string[]; clock: () => number }>(
    { secret: ['new secret'], clock: () => NOW * 1000 },
    row,
  );
  const group = (t: number, key: string) => `t=${t},v1=${hexFor(t, key)}`;
  const verify = (value: string) =>
    preset.verify?.(makeRequest({ rawBody: BODY, headers: { 'x-grouped-signature': value } }));

  it('accepts when any group matches under its own stamp, and refuses stale or crossed groups', () => {
    expect(verify(`${group(NOW, 'old secret')} ${group(NOW - 10, 'new secret')}`)).toBe(true);
    expect(verify(`${group(NOW, 'old secret')} ${group(NOW - 400, 'new secret')}`)).toBe(false);
    expect(verify(`t=${NOW},v1=${hexFor(NOW - 10, 'new secret')} t=${NOW - 10}`)).toBe(false);
    expect(verify(group(NOW, 'old secret'))).toBe(false);
  });
});
