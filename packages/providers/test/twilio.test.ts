import { createHash } from 'node:crypto';
import {
  getExpectedTwilioSignature,
  validateRequest,
  validateRequestWithBody,
} from 'twilio/lib/webhooks/webhooks';
import { ConfigError } from '@webhook-idempotency/core';
import { twilio } from '../src';
import { makeRequest } from './helpers';

// Judged by the twilio SDK 6.2 (validateRequest, validateRequestWithBody): it signs the vectors
// (getExpectedTwilioSignature) and must agree with the preset on every genuine and altered request.
const TOKEN = 'twilio-auth-token-of-ours-0123456';
const BASE = 'https://example.com';

/** An inbound SMS as Twilio posts it: form fields, one repeated, with spaces, "+", "&" and accents. */
const pairs: Array<[string, string]> = [
  ['MessageSid', 'SM0123456789abcdef0123456789abcdef'],
  ['SmsStatus', 'received'],
  ['From', '+15551234567'],
  ['To', '+15557654321'],
  ['Body', 'Café & crème, 100% + more'],
  ['MediaUrl0', 'https://api.twilio.com/media/b'],
  ['MediaUrl0', 'https://api.twilio.com/media/a'],
  ['AccountSid', 'AC0123456789abcdef0123456789abcdef'],
];
const form = (entries = pairs) => new URLSearchParams(entries).toString();
/** The same fields as a body parser hands them to the SDK (a repeated field as an array). */
const params = (entries = pairs) => {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of entries) {
    const seen = out[name];
    out[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
};

const request = (url: string, body: string, headers: Record<string, string> = {}) =>
  makeRequest({
    url,
    rawBody: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
const signed = (
  path: string,
  body: string,
  signature: string,
  headers: Record<string, string> = {},
) => request(path, body, { 'x-twilio-signature': signature, ...headers });

describe('twilio preset', () => {
  const preset = twilio({ authToken: TOKEN, baseUrl: BASE });

  it('describes itself and keys on the idempotency token, else on the resource SID and a digest of the signed request', () => {
    expect(preset).toMatchObject({ provider: 'twilio', needsRawBody: true, retentionDays: 7 });
    const withToken = request('/sms', form(), { 'i-twilio-idempotency-token': 'idem-1234' });
    expect(preset.key(withToken)).toBe('idem-1234');
    // The digest: SHA-256 of the URL Twilio called, a newline, the sorted parameters form-encoded.
    const sorted = new URLSearchParams(
      [...pairs].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1)),
    );
    const digest = createHash('sha256').update(`${BASE}/sms\n${sorted}`).digest('hex');
    expect(preset.key(request('/sms', form()))).toBe(
      `SM0123456789abcdef0123456789abcdef:${digest.slice(0, 32)}`,
    );
    expect(preset.fingerprint?.(request('/sms', form()))).toBe(digest);
    // Status callbacks of one message share its SID and arrive once per status: one key each.
    const status = (state: string) =>
      request(
        '/status',
        form([
          ['MessageSid', 'SM0123456789abcdef0123456789abcde1'],
          ['MessageStatus', state],
          ['SmsStatus', state],
        ]),
      );
    const [sent, delivered] = [preset.key(status('sent')), preset.key(status('delivered'))];
    expect(sent).toMatch(/^SM0123456789abcdef0123456789abcde1:[0-9a-f]{32}$/);
    expect(delivered).toMatch(/^SM0123456789abcdef0123456789abcde1:[0-9a-f]{32}$/);
    expect(sent).not.toBe(delivered);
    // A recording's own SID names it, before the call's.
    const recording = form([
      ['CallSid', 'CA0123456789abcdef0123456789abcdef'],
      ['RecordingSid', 'RE0123456789abcdef0123456789abcdef'],
      ['RecordingStatus', 'completed'],
    ]);
    expect(preset.key(request('/rec', recording))).toMatch(/^RE0123456789abcdef0123456789abcdef:/);
    // No SID (or not a SID's shape): the digest alone; no raw bytes: no key.
    expect(preset.key(request('/x', form([['CallSid', 'CA1']])))).toMatch(/^[0-9a-f]{32}$/);
    expect(preset.key(makeRequest({ url: '/x' }))).toBeUndefined();
  });

  it("accepts what the SDK's validateRequest accepts for a form POST, and refuses what it refuses", () => {
    const url = `${BASE}/sms?tenant=acme&x=a%20b`;
    const signature = getExpectedTwilioSignature(TOKEN, url, params());
    expect(validateRequest(TOKEN, signature, url, params())).toBe(true);
    expect(preset.verify?.(signed('/sms?tenant=acme&x=a%20b', form(), signature))).toBe(true);

    const tampered = pairs.map(([n, v]): [string, string] => [n, n === 'Body' ? 'Cafe' : v]);
    expect(validateRequest(TOKEN, signature, url, params(tampered))).toBe(false);
    expect(preset.verify?.(signed('/sms?tenant=acme&x=a%20b', form(tampered), signature))).toBe(
      false,
    );

    const wrongToken = getExpectedTwilioSignature('another-auth-token-000000000000', url, params());
    expect(validateRequest(TOKEN, wrongToken, url, params())).toBe(false);
    expect(preset.verify?.(signed('/sms?tenant=acme&x=a%20b', form(), wrongToken))).toBe(false);

    // Another path or query: Twilio signed the URL it requested.
    expect(validateRequest(TOKEN, signature, `${BASE}/sms?tenant=other&x=a%20b`, params())).toBe(
      false,
    );
    expect(preset.verify?.(signed('/sms?tenant=other&x=a%20b', form(), signature))).toBe(false);
    // The URL as a proxy forwarded it is not what Twilio signed.
    const behindProxy = twilio({ authToken: TOKEN, baseUrl: 'http://10.0.0.5:3000' });
    expect(behindProxy.verify?.(signed('/sms?tenant=acme&x=a%20b', form(), signature))).toBe(false);
  });

  it('accepts a URL signed with the default port or without it, as the SDK does', () => {
    const signature = getExpectedTwilioSignature(TOKEN, 'https://example.com:443/sms', params());
    expect(validateRequest(TOKEN, signature, `${BASE}/sms`, params())).toBe(true);
    expect(preset.verify?.(signed('/sms', form(), signature))).toBe(true);
    const withPort = twilio({ authToken: TOKEN, baseUrl: 'https://example.com:443' });
    const plain = getExpectedTwilioSignature(TOKEN, `${BASE}/sms`, params());
    expect(withPort.verify?.(signed('/sms', form(), plain))).toBe(true);
    const otherPort = getExpectedTwilioSignature(TOKEN, 'https://example.com:8443/sms', params());
    expect(validateRequest(TOKEN, otherPort, `${BASE}/sms`, params())).toBe(false);
    expect(preset.verify?.(signed('/sms', form(), otherPort))).toBe(false);
  });

  it('checks a JSON body through bodySHA256, as validateRequestWithBody does', () => {
    const body = JSON.stringify({
      EventType: 'onMessageAdded',
      ConversationSid: 'CH1',
      Body: 'hi',
    });
    const hash = createHash('sha256').update(body).digest('hex');
    const path = `/events?bodySHA256=${hash}`;
    const signature = getExpectedTwilioSignature(TOKEN, BASE + path, {});
    const json = (text: string, sig: string) =>
      makeRequest({
        url: path,
        rawBody: text,
        headers: { 'content-type': 'application/json', 'x-twilio-signature': sig },
      });
    expect(validateRequestWithBody(TOKEN, signature, BASE + path, body)).toBe(true);
    expect(preset.verify?.(json(body, signature))).toBe(true);

    const tampered = body.replace('hi', 'ho');
    expect(validateRequestWithBody(TOKEN, signature, BASE + path, tampered)).toBe(false);
    expect(preset.verify?.(json(tampered, signature))).toBe(false);
    const wrongToken = getExpectedTwilioSignature(
      'another-auth-token-000000000000',
      BASE + path,
      {},
    );
    expect(validateRequestWithBody(TOKEN, wrongToken, BASE + path, body)).toBe(false);
    expect(preset.verify?.(json(body, wrongToken))).toBe(false);
  });

  it('takes the full URL from a function when a base URL is not enough', () => {
    const custom = twilio({
      authToken: TOKEN,
      url: (r) => `https://hooks.example.com/twilio${r.url}`,
    });
    const signature = getExpectedTwilioSignature(
      TOKEN,
      'https://hooks.example.com/twilio/sms',
      params(),
    );
    expect(custom.verify?.(signed('/sms', form(), signature))).toBe(true);
    expect(preset.verify?.(signed('/sms', form(), signature))).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['hex instead of base64', createHash('sha1').update('x').digest('hex')],
    ['truncated', 'abc='],
  ])('refuses a signature that is %s, and a request without its bytes', (_label, signature) => {
    const headers: Record<string, string> =
      signature === undefined ? {} : { 'x-twilio-signature': signature };
    expect(preset.verify?.(request('/sms', form(), headers))).toBe(false);
    const good = getExpectedTwilioSignature(TOKEN, `${BASE}/sms`, params());
    expect(
      preset.verify?.(makeRequest({ url: '/sms', headers: { 'x-twilio-signature': good } })),
    ).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{ baseUrl: BASE }, 'authToken'],
    [{ authToken: TOKEN }, 'baseUrl'],
    [{ authToken: TOKEN, baseUrl: 'example.com' }, 'baseUrl'],
    [{ authToken: TOKEN, baseUrl: 'https://example.com/?a=1' }, 'baseUrl'],
    [{ authToken: TOKEN, url: 'https://example.com/sms' }, 'url'],
    [{ authToken: TOKEN, baseUrl: BASE, url: () => BASE }, 'url'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => twilio(options as never)).toThrow(ConfigError);
    expect(() => twilio(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
