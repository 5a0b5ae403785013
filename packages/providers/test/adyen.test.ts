import { randomBytes } from 'node:crypto';
import { hmacValidator as HmacValidator } from '@adyen/api-library';
import { ConfigError } from '@webhook-idempotency/core';
import { adyen } from '../src';
import { basic, jsonRequest } from './helpers';

/** A webhook HMAC key as the Customer Area shows it: 32 random bytes, upper-case hex. */
const KEY = randomBytes(32).toString('hex').toUpperCase();
const OTHER = randomBytes(32).toString('hex').toUpperCase();
const validator = new HmacValidator();

type Item = Record<string, unknown> & { additionalData?: Record<string, string> };

const authorisation: Item = {
  pspReference: '7914073381342284',
  merchantAccountCode: 'OurShopECOM',
  merchantReference: 'order-1001',
  amount: { value: 1130, currency: 'EUR' },
  eventCode: 'AUTHORISATION',
  eventDate: '2026-12-04T10:00:00+01:00',
  success: 'true',
  paymentMethod: 'visa',
  additionalData: {},
};
const capture: Item = {
  pspReference: '8825408195409505',
  originalReference: '7914073381342284',
  merchantAccountCode: 'OurShopECOM',
  merchantReference: 'order-1001',
  amount: { value: 1130, currency: 'EUR' },
  eventCode: 'CAPTURE',
  success: 'true',
};

/** An item signed by the SDK, as Adyen signs it: `additionalData.hmacSignature`. */
const signed = (item: Item, key = KEY): Item => ({
  ...item,
  additionalData: {
    ...(item.additionalData ?? {}),
    hmacSignature: validator.calculateHmac(item as never, key),
  },
});

const notification = (...items: Item[]) =>
  JSON.stringify({
    live: 'false',
    notificationItems: items.map((NotificationRequestItem) => ({ NotificationRequestItem })),
  });

const request = (text: string, headers: Record<string, string> = {}, parsed = false) =>
  jsonRequest(text, { headers, parsed });

describe('adyen preset', () => {
  const preset = adyen({ hmacKey: KEY });

  it('describes itself: batched, keyed per item on pspReference, eventCode and success', () => {
    expect(preset).toMatchObject({ provider: 'adyen', needsRawBody: false, retentionDays: 45 });
    const items = preset.items!(request(notification(signed(authorisation), signed(capture))))!;
    expect(items.map((item) => item.key)).toEqual([
      '7914073381342284:AUTHORISATION:true',
      '8825408195409505:CAPTURE:true',
    ]);
    expect(items[1]!.value).toMatchObject({ originalReference: '7914073381342284' });
    expect(preset.items!(request('{"live":"false"}'))).toBeUndefined();
    const refused = preset.items!(request(notification({ ...authorisation, success: 'false' })))!;
    expect(refused[0]!.key).toBe('7914073381342284:AUTHORISATION:false');
  });

  it("accepts what Adyen's SDK (HmacValidator.validateHMAC) accepts, item by item, parsed or raw", () => {
    const items = [signed(authorisation), signed(capture)];
    for (const item of items) expect(validator.validateHMAC(item as never, KEY)).toBe(true);
    const text = notification(...items);
    expect(preset.verify!(request(text))).toBe(true);
    expect(preset.verify!(jsonRequest(text, { parsed: true, raw: false }))).toBe(true);
  });

  it('refuses the whole batch when any item is tampered, unsigned or signed with another key, as the SDK does that item', () => {
    const good = signed(authorisation);
    const cases: Item[] = [
      { ...signed(capture), amount: { value: 1, currency: 'EUR' } },
      { ...signed(capture), success: 'false' },
      { ...capture, additionalData: {} },
      signed(capture, OTHER),
    ];
    for (const bad of cases) {
      if (bad.additionalData?.hmacSignature)
        expect(validator.validateHMAC(bad as never, KEY)).toBe(false);
      expect(preset.verify!(request(notification(good, bad)))).toBe(false);
    }
    // What the signature does not cover: a changed `reason` or `additionalData` field passes.
    const reason = { ...signed(capture), reason: 'not signed' };
    expect(validator.validateHMAC(reason as never, KEY)).toBe(true);
    expect(preset.verify!(request(notification(good, reason)))).toBe(true);
  });

  it('checks Basic credentials too when they are configured', () => {
    const withAuth = adyen({ hmacKey: KEY, basicAuth: { username: 'adyen', password: 'pw' } });
    const text = notification(signed(authorisation));
    expect(withAuth.verify!(request(text, { authorization: basic('adyen', 'pw') }))).toBe(true);
    expect(withAuth.verify!(request(text, { authorization: basic('adyen', 'no') }))).toBe(false);
    expect(withAuth.verify!(request(text))).toBe(false);
  });

  it.each([
    ['no items', '{"live":"false","notificationItems":[]}'],
    ['an item that is no object', '{"notificationItems":[{"NotificationRequestItem":1}]}'],
    ['not JSON', 'notificationItems'],
  ])('refuses a body with %s', (_label, text) => {
    expect(preset.verify!(request(text))).toBe(false);
  });

  it.each([
    ['no options', 'options', undefined],
    ['no key', 'hmacKey', {}],
    ['a key that is not hex', 'hmacKey', { hmacKey: 'not-hex' }],
    ['basicAuth not an object', 'basicAuth', { hmacKey: KEY, basicAuth: 'adyen:pw' }],
    ['basicAuth without password', 'basicAuth', { hmacKey: KEY, basicAuth: { username: 'a' } }],
  ])('%s throws a ConfigError naming %s', (_label, option, options) => {
    expect(() => adyen(options as never)).toThrow(ConfigError);
    expect(() => adyen(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
