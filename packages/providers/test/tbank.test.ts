import { createHash } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import * as signers from '@webhook-idempotency/providers/testing';
import { tbank } from '../src';
import { jsonRequest } from './helpers';

// Judged by T-Bank's own worked examples: the token page's (an Init request under the password
// 11111111111111) and the notification token's (booleans spelled `true`, the amount a number).
const INIT = {
  TerminalKey: 'MerchantTerminalKey',
  Amount: 19200,
  OrderId: '00000',
  Description: 'Подарочная карта на 1000 рублей',
  DATA: { Phone: '+71234567890', Email: 'a@test.com' },
  Receipt: { Email: 'a@test.com', Taxation: 'osn', Items: [{ Name: 'Карта', Amount: 19200 }] },
  Token: '72dd466f8ace0a37a1f740ce5fb78101712bc0665d91a8108c7c8a0ccd426db2',
};
const NOTIFICATION = {
  TerminalKey: '1234567890DEMO',
  OrderId: '000000',
  Success: true,
  Status: 'AUTHORIZED',
  PaymentId: '0000000',
  ErrorCode: '0',
  Amount: 1111,
  CardId: '000000',
  Pan: '200000******0000',
  ExpDate: '1111',
  RebillId: '000000',
  Token: '1c0964277d0213349243065a0d5b838b8e90d2d25f740d0f2767836e710e80c8',
};
const signed = (fields: Record<string, unknown>, password: string) => {
  const { Token: _drop, ...rest } = fields;
  const all: Record<string, unknown> = { ...rest, Password: password };
  const text = Object.keys(all)
    .filter((name) => typeof all[name] !== 'object')
    .sort()
    .map((name) => String(all[name]))
    .join('');
  return { ...rest, Token: createHash('sha256').update(text).digest('hex') };
};

describe('tbank preset', () => {
  const preset = tbank({ password: '11111111111' });

  it('describes itself and names the status', () => {
    expect(preset).toMatchObject({ provider: 'tbank', needsRawBody: false, retentionDays: 30 });
    expect(preset.eventType(jsonRequest(NOTIFICATION))).toBe('AUTHORIZED');
  });

  it("accepts both of T-Bank's worked examples: nested objects unsigned, booleans spelled true", () => {
    expect(preset.verify?.(jsonRequest(NOTIFICATION))).toBe(true);
    expect(preset.verify?.(jsonRequest(NOTIFICATION, { parsed: true, raw: false }))).toBe(true);
    expect(tbank({ password: '11111111111111' }).verify?.(jsonRequest(INIT))).toBe(true);
    // The amount as a string spells the same text.
    expect(preset.verify?.(jsonRequest({ ...NOTIFICATION, Amount: '1111' }))).toBe(true);
  });

  it('refuses a changed root field, another password, or no Token; nested fields are not signed', () => {
    for (const changed of [
      { ...NOTIFICATION, Status: 'CONFIRMED' },
      { ...NOTIFICATION, Amount: 1112 },
      { ...NOTIFICATION, Success: false },
      { ...NOTIFICATION, Extra: 'x' },
      { ...NOTIFICATION, Token: undefined },
      { ...NOTIFICATION, Token: NOTIFICATION.Token.slice(2) },
    ])
      expect(preset.verify?.(jsonRequest(changed))).toBe(false);
    expect(tbank({ password: 'another' }).verify?.(jsonRequest(NOTIFICATION))).toBe(false);
    expect(preset.verify?.(jsonRequest({ ...NOTIFICATION, Data: { Any: 'thing' } }))).toBe(true);
  });

  it('keys on PaymentId, Status and Amount', () => {
    expect(preset.key(jsonRequest(NOTIFICATION))).toBe('0000000:AUTHORIZED:1111');
    const refund = signed({ ...NOTIFICATION, Status: 'PARTIAL_REFUNDED', Amount: 500 }, 'p');
    expect(preset.key(jsonRequest(refund))).toBe('0000000:PARTIAL_REFUNDED:500');
    const { PaymentId: _id, ...noId } = NOTIFICATION;
    expect(preset.key(jsonRequest(noId))).toBeUndefined();
  });

  it('answers a refusal and an in-progress request in plain text, never OK', () => {
    const request = jsonRequest(NOTIFICATION);
    const refused = preset.unauthorized?.(request);
    const busy = preset.inProgress?.(request, 2);
    expect([refused?.status, busy?.status, busy?.headers['retry-after']]).toEqual([401, 409, '2']);
    for (const record of [refused, busy]) {
      expect(record?.headers['content-type']).toMatch(/^text\/plain/);
      expect(record?.body.toString()).not.toBe('OK');
    }
  });

  it('accepts the old and the new password while you change it; refuses bad options by name', () => {
    const both = tbank({ password: ['old password', 'new password'] });
    for (const password of ['old password', 'new password'])
      expect(both.verify?.(jsonRequest(signed(NOTIFICATION, password)))).toBe(true);
    expect(() => tbank({ password: '' })).toThrow(ConfigError);
    expect(() => tbank({} as never)).toThrow(expect.objectContaining({ option: 'password' }));
  });

  it("the kit's signer makes the documented notification token, and the preset takes its delivery", () => {
    const { Token, ...fields } = NOTIFICATION;
    const delivery = signers.tbank({ password: '11111111111' }).event(fields);
    expect(JSON.parse(delivery.body.toString()).Token).toBe(Token);
    const request = jsonRequest(delivery.body.toString());
    expect(preset.verify?.(request)).toBe(true);
    expect(preset.verify?.(jsonRequest(delivery.forged().body.toString()))).toBe(false);
  });
});
