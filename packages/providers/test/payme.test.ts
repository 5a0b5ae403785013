import { ConfigError } from '@webhook-idempotency/core';
import { payme } from '../src';
import { basic, bodyJson, jsonRequest, makeRequest, storedJson } from './helpers';

const PASSWORD = 'Ki8mWx?9d&Xq#2U7v@ZpN3bRtL5hE1cY4oAs'; // 36 characters, like a cash-desk key
const TX = '5305e3bab097f420a62ced0b';
const auth = { authorization: basic('Paycom', PASSWORD) };

const createTransaction = {
  method: 'CreateTransaction',
  params: { id: TX, time: 1399114284039, amount: 500000, account: { order_id: '1042' } },
  id: 2032,
};

const rpc = (method: string, params: Record<string, unknown>, id: unknown = 7) =>
  jsonRequest({ method, params, id }, { headers: auth });

describe('payme preset', () => {
  const preset = payme({ password: PASSWORD });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'payme', needsRawBody: false, retentionDays: 3650 });
  });

  describe('key', () => {
    it('is method:params.id, from the raw bytes or the parsed body', () => {
      expect(preset.key(jsonRequest(createTransaction))).toBe(`CreateTransaction:${TX}`);
      expect(preset.key(jsonRequest(createTransaction, { parsed: true, raw: false }))).toBe(
        `CreateTransaction:${TX}`,
      );
    });

    it('tells apart the transaction methods that share params.id', () => {
      const keys = ['CreateTransaction', 'PerformTransaction', 'CancelTransaction'].map((m) =>
        preset.key(rpc(m, { id: TX, reason: 3 })),
      );
      expect(keys).toEqual([
        `CreateTransaction:${TX}`,
        `PerformTransaction:${TX}`,
        `CancelTransaction:${TX}`,
      ]);
    });

    it('adds params.type for SetFiscalData, whose receipt id comes with PERFORM and CANCEL', () => {
      expect(preset.key(rpc('SetFiscalData', { id: TX, type: 'PERFORM', fiscal_data: {} }))).toBe(
        `SetFiscalData:${TX}:PERFORM`,
      );
      expect(preset.key(rpc('SetFiscalData', { id: TX, type: 'CANCEL', fiscal_data: {} }))).toBe(
        `SetFiscalData:${TX}:CANCEL`,
      );
      expect(preset.key(rpc('SetFiscalData', { id: TX, fiscal_data: {} }))).toBeUndefined();
    });

    it('is undefined without method, params or params.id', () => {
      expect(preset.key(rpc('PerformTransaction', {}))).toBeUndefined();
      expect(preset.key(rpc('PerformTransaction', { id: 42 }))).toBeUndefined();
      expect(preset.key(jsonRequest({ params: { id: TX }, id: 1 }))).toBeUndefined();
      expect(preset.key(jsonRequest({ method: 'PerformTransaction', id: 1 }))).toBeUndefined();
      expect(preset.key(jsonRequest('{"method":"PerformTransaction",'))).toBeUndefined();
      expect(preset.key(makeRequest())).toBeUndefined();
    });
  });

  describe('pass-through', () => {
    it.each([
      ['CheckPerformTransaction', { amount: 500000, account: { order_id: '1042' } }],
      ['CheckTransaction', { id: TX }],
      ['GetStatement', { from: 1399114284039, to: 1399120284000 }],
      ['ChangePassword', { password: 'new-key' }],
    ])('%s is never deduplicated', (method, params) => {
      expect(preset.passThrough?.(rpc(method, params))).toBe(true);
    });

    it('lets requests without a usable key through, so the handler answers the JSON-RPC error with HTTP 200', () => {
      expect(preset.passThrough?.(jsonRequest('not json'))).toBe(true);
      expect(preset.passThrough?.(rpc('UnknownMethod', {}))).toBe(true);
      expect(preset.passThrough?.(rpc('PerformTransaction', {}))).toBe(true);
    });

    it('guards the methods that change state', () => {
      for (const method of ['CreateTransaction', 'PerformTransaction', 'CancelTransaction']) {
        expect(preset.passThrough?.(rpc(method, { id: TX }))).toBe(false);
      }
      expect(preset.passThrough?.(rpc('SetFiscalData', { id: TX, type: 'PERFORM' }))).toBe(false);
    });
  });

  describe('verify (HTTP Basic)', () => {
    it('accepts Paycom with the cash-desk key', () => {
      expect(preset.verify?.(jsonRequest(createTransaction, { headers: auth }))).toBe(true);
      expect(
        preset.verify?.(
          jsonRequest(createTransaction, {
            headers: { authorization: auth.authorization.replace('Basic', 'basic') },
          }),
        ),
      ).toBe(true);
    });

    it('accepts a configured login', () => {
      const custom = payme({ password: PASSWORD, login: 'merchant-42' });
      expect(
        custom.verify?.(
          jsonRequest(createTransaction, {
            headers: { authorization: basic('merchant-42', PASSWORD) },
          }),
        ),
      ).toBe(true);
      expect(custom.verify?.(jsonRequest(createTransaction, { headers: auth }))).toBe(false);
    });

    it.each([
      ['a wrong password', basic('Paycom', `${PASSWORD.slice(0, -1)}x`)],
      ['a wrong login', basic('Paycon', PASSWORD)],
      ['a password prefix', basic('Paycom', PASSWORD.slice(0, 10))],
      ['no colon', `Basic ${Buffer.from(`Paycom${PASSWORD}`).toString('base64')}`],
      ['another scheme', `Bearer ${PASSWORD}`],
      ['garbage base64', 'Basic ***'],
      ['an empty value', ''],
    ])('rejects %s', (_label, authorization) => {
      expect(preset.verify?.(jsonRequest(createTransaction, { headers: { authorization } }))).toBe(
        false,
      );
    });

    it('rejects a missing or repeated header without throwing', () => {
      expect(preset.verify?.(jsonRequest(createTransaction))).toBe(false);
      expect(
        preset.verify?.(
          jsonRequest(createTransaction, {
            headers: { authorization: [auth.authorization, auth.authorization] },
          }),
        ),
      ).toBe(false);
    });
  });

  describe('answers', () => {
    it('unauthorized: HTTP 200, JSON-RPC -32504 with the current id', () => {
      const answer = preset.unauthorized?.(jsonRequest(createTransaction));
      expect(answer?.status).toBe(200);
      expect(answer?.headers['content-type']).toMatch(/^application\/json/);
      expect(bodyJson(answer)).toEqual({
        error: {
          code: -32504,
          message: { ru: expect.any(String), uz: expect.any(String), en: expect.any(String) },
        },
        id: 2032,
      });
    });

    it('unauthorized on an unreadable body still answers JSON-RPC, with id null', () => {
      expect(bodyJson(preset.unauthorized?.(jsonRequest('{oops')))).toMatchObject({
        error: { code: -32504 },
        id: null,
      });
    });

    it('in progress: HTTP 200, JSON-RPC -32400 (system error) with the current id', () => {
      const answer = preset.inProgress?.(jsonRequest({ ...createTransaction, id: 'abc' }), 12);
      expect(answer?.status).toBe(200);
      expect(bodyJson(answer)).toMatchObject({ error: { code: -32400 }, id: 'abc' });
    });
  });

  describe('replay', () => {
    const first = `{"result":{"create_time":1399114284039,"transaction":"5123","state":1},"id":2032}`;

    it('carries the current request JSON-RPC id', () => {
      const stored = storedJson(first, {
        'content-type': 'application/json',
        'content-length': String(first.length),
      });
      const replayed = preset.replay?.(stored, jsonRequest({ ...createTransaction, id: 2033 }));
      expect(bodyJson(replayed)).toEqual({
        result: { create_time: 1399114284039, transaction: '5123', state: 1 },
        id: 2033,
      });
      expect(replayed?.status).toBe(200);
      expect(replayed?.headers['content-length']).toBe(String(replayed?.body.length));
    });

    it('returns the stored record untouched when the id is the same', () => {
      const stored = storedJson(first);
      expect(preset.replay?.(stored, jsonRequest(createTransaction))).toBe(stored);
    });

    it('leaves a non-JSON stored body alone', () => {
      const stored = storedJson('OK');
      expect(preset.replay?.(stored, jsonRequest({ ...createTransaction, id: 9 }))).toBe(stored);
    });
  });

  describe('fingerprint', () => {
    it('ignores the JSON-RPC id, key order and whitespace', () => {
      const a = preset.fingerprint?.(jsonRequest(createTransaction));
      const reordered = `{ "id": 99, "params": {"account": {"order_id": "1042"}, "amount": 500000, "time": 1399114284039, "id": "${TX}"}, "method": "CreateTransaction" }`;
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      expect(preset.fingerprint?.(jsonRequest(reordered))).toBe(a);
    });

    it('changes with the params', () => {
      const other = {
        ...createTransaction,
        params: { ...createTransaction.params, amount: 500100 },
      };
      expect(preset.fingerprint?.(jsonRequest(other))).not.toBe(
        preset.fingerprint?.(jsonRequest(createTransaction)),
      );
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'password'],
      [{ password: '' }, 'password'],
      [{ password: PASSWORD, login: '' }, 'login'],
      [{ password: PASSWORD, login: 'Pay:com' }, 'login'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => payme(options as never)).toThrow(ConfigError);
      expect(() => payme(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
