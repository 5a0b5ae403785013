import { Signature } from '@hubspot/api-client';
import { ConfigError } from '@webhook-idempotency/core';
import { hubspot } from '../src';
import { jsonRequest } from './helpers';

const SECRET = 'yyyyyyyy-hubspot-client-secret';
const URL = 'https://app.example.com/webhooks/hubspot?portal=all';
const event = (eventId: number, attemptNumber = 0, subscriptionId = 12345) => ({
  eventId,
  subscriptionId,
  portalId: 62515,
  appId: 54321,
  occurredAt: 1_764_000_000_000,
  subscriptionType: 'contact.propertyChange',
  attemptNumber,
  objectId: 123,
  propertyName: 'email',
  propertyValue: 'a@example.com',
  changeSource: 'CRM',
});
const body = JSON.stringify([event(1), event(2), event(1, 0, 777)]);

/** The SDK signs v3 as HubSpot does; `timestamp` in milliseconds. */
const sign = (text = body, timestamp = Date.now(), url = URL, method = 'POST', secret = SECRET) =>
  Signature.getSignature(method, 'v3', {
    clientSecret: secret,
    requestBody: text,
    url,
    timestamp,
    signature: '',
  });

/** The judge: the SDK's Signature.isValid for v3 (it checks the 5-minute window against the real clock). */
const judge = (signature: string, text = body, timestamp = Date.now(), url = URL) => {
  try {
    return Signature.isValid({
      signatureVersion: 'v3',
      signature,
      clientSecret: SECRET,
      requestBody: text,
      url,
      method: 'POST',
      timestamp,
    });
  } catch {
    return false; // "Timestamp is invalid, reject request"
  }
};

const request = (signature: string | undefined, text = body, timestamp = Date.now()) =>
  jsonRequest(text, {
    url: '/internal/path/the/proxy/rewrote',
    headers: {
      'x-hubspot-request-timestamp': String(timestamp),
      ...(signature === undefined ? {} : { 'x-hubspot-signature-v3': signature }),
    },
  });

describe('hubspot preset', () => {
  const preset = hubspot({ clientSecret: SECRET, targetUrl: URL });

  it('describes itself: batched, keyed per event on portal, subscription and event id', () => {
    expect(preset).toMatchObject({ provider: 'hubspot', needsRawBody: true, retentionDays: 3 });
    const items = preset.items!(request(undefined))!;
    expect(items.map((item) => item.key)).toEqual([
      '62515:12345:1',
      '62515:12345:2',
      '62515:777:1',
    ]);
    // attemptNumber changes on every retry: it is left out of the item's fingerprint.
    const retry = preset.items!(request(undefined, JSON.stringify([event(1, 3)])))!;
    expect(retry[0]!.fingerprint).toBe(items[0]!.fingerprint);
    const changed = { ...event(1), propertyValue: 'b@example.com' };
    const other = preset.items!(request(undefined, JSON.stringify([changed])))!;
    expect(other[0]!.fingerprint).not.toBe(items[0]!.fingerprint);
    const keyless = preset.items!(request(undefined, '[{"eventId":1}]'))!;
    expect(keyless[0]!.key).toBeUndefined();
  });

  it("accepts what HubSpot's SDK (Signature.isValid, v3) accepts, and refuses what it refuses", () => {
    const now = Date.now();
    expect(judge(sign(body, now), body, now)).toBe(true);
    expect(preset.verify!(request(sign(body, now), body, now))).toBe(true);

    const tampered = body.replace('a@example.com', 'b@example.com');
    expect(judge(sign(body, now), tampered, now)).toBe(false);
    expect(preset.verify!(request(sign(body, now), tampered, now))).toBe(false);

    const wrongKey = sign(body, now, URL, 'POST', 'another secret');
    expect(judge(wrongKey, body, now)).toBe(false);
    expect(preset.verify!(request(wrongKey, body, now))).toBe(false);

    const elsewhere = sign(body, now, 'https://attacker.example/hook');
    expect(judge(elsewhere, body, now)).toBe(false);
    expect(preset.verify!(request(elsewhere, body, now))).toBe(false);

    // The timestamp is signed: another one fails.
    expect(judge(sign(body, now), body, now + 1)).toBe(false);
    expect(preset.verify!(request(sign(body, now), body, now + 1))).toBe(false);

    // Older than 5 minutes: both refuse.
    const stale = now - 301_000;
    expect(judge(sign(body, stale), body, stale)).toBe(false);
    expect(preset.verify!(request(sign(body, stale), body, stale))).toBe(false);
  });

  it('signs the URI with the escapes HubSpot decodes turned back; a function gives the URL per request', () => {
    const now = Date.now();
    const escaped = 'https://app.example.com/webhooks/hubspot%3Ftenant=acme%40example%2Cb';
    const decoded = 'https://app.example.com/webhooks/hubspot?tenant=acme@example,b';
    const signature = sign(body, now, decoded);
    expect(judge(signature, body, now, decoded)).toBe(true);
    const fromEscaped = hubspot({ clientSecret: SECRET, targetUrl: escaped });
    expect(fromEscaped.verify!(request(signature, body, now))).toBe(true);
    const perRequest = hubspot({
      clientSecret: SECRET,
      targetUrl: (r) => `https://app.example.com${r.url}`,
    });
    const own = sign(body, now, 'https://app.example.com/internal/path/the/proxy/rewrote');
    expect(perRequest.verify!(request(own, body, now))).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['hex instead of base64', 'ab'.repeat(32)],
    ['truncated', 'AAAA'],
  ])('refuses a signature that is %s', (_label, signature) => {
    expect(preset.verify!(request(signature))).toBe(false);
  });

  it.each([
    ['no options', 'options', undefined],
    ['no secret', 'clientSecret', { targetUrl: URL }],
    ['no URL', 'targetUrl', { clientSecret: SECRET }],
    ['a path for a URL', 'targetUrl', { clientSecret: SECRET, targetUrl: '/webhooks/hubspot' }],
    [
      'a zero tolerance',
      'toleranceSeconds',
      { clientSecret: SECRET, targetUrl: URL, toleranceSeconds: 0 },
    ],
  ])('%s throws a ConfigError naming %s', (_label, option, options) => {
    expect(() => hubspot(options as never)).toThrow(ConfigError);
    expect(() => hubspot(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
