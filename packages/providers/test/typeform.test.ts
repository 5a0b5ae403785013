import { createHmac } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { typeform } from '../src';
import { jsonRequest } from './helpers';

// Typeform's documented scheme ("Secure your webhooks"): `sha256=` and the base64 HMAC-SHA256
// of the raw body under the webhook's secret. Typeform ships no verifier to judge with.
const SECRET = 'typeform webhook secret';
const body = JSON.stringify({
  event_id: '01HV7R3X9Q4W8B1Z6N2M5K7J3T',
  event_type: 'form_response',
  form_response: { form_id: 'lT4Z3j', token: 'a3a12ec67a1365927098a606107fac15', answers: [] },
});
const sign = (text = body, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(text).digest('base64')}`;
const request = (signature: string | undefined, text = body) =>
  jsonRequest(text, {
    headers: signature === undefined ? {} : { 'typeform-signature': signature },
  });

describe('typeform preset', () => {
  const preset = typeform({ secret: SECRET });

  it('describes itself and keys on event_id', () => {
    expect(preset).toMatchObject({ provider: 'typeform', needsRawBody: true, retentionDays: 7 });
    expect(preset.key(request(undefined))).toBe('01HV7R3X9Q4W8B1Z6N2M5K7J3T');
  });

  it('accepts the documented signature and refuses a tampered body or another secret', () => {
    expect(preset.verify?.(request(sign()))).toBe(true);
    expect(preset.verify?.(request(sign(), body.replace('lT4Z3j', 'xxxxxx')))).toBe(false);
    expect(preset.verify?.(request(sign(body, 'another')))).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['without its prefix', sign().slice('sha256='.length)],
    ['hex', `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`],
  ])('refuses a signature that is %s', (_label, signature) => {
    expect(preset.verify?.(request(signature))).toBe(false);
  });

  it.each([
    [undefined, 'options'],
    [{}, 'secret'],
  ])('%j throws a ConfigError naming %s', (options, option) => {
    expect(() => typeform(options as never)).toThrow(ConfigError);
    expect(() => typeform(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
