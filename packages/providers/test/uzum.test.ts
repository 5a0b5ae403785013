import { ConfigError } from '@webhook-idempotency/core';
import { uzum } from '../src';
import { basic, jsonRequest } from './helpers';

const USER = 'partner-498';
const PASSWORD = 'u2m-S3cr3t-p@ss';
const headers = { authorization: basic(USER, PASSWORD), 'content-type': 'application/json' };
const TRANS = '3f0e0f6e-8a51-4a55-9a55-2f0a1c7e2b11';

const createBody = {
  serviceId: 498,
  timestamp: 1715678400000,
  transId: TRANS,
  params: { account: '1042' },
  amount: 1500000,
};

const at = (path: string, body: unknown = createBody) => jsonRequest(body, { url: path, headers });

describe('uzum preset', () => {
  const preset = uzum({ username: USER, password: PASSWORD });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'uzum', needsRawBody: false, retentionDays: 3650 });
  });

  describe('key', () => {
    it('is serviceId:transId:operation, the operation taken from the path', () => {
      expect(preset.key(at('/webhooks/uzum/create'))).toBe(`498:${TRANS}:create`);
      expect(preset.key(at('/webhooks/uzum/confirm'))).toBe(`498:${TRANS}:confirm`);
      expect(preset.key(at('/uzum/reverse/?attempt=2'))).toBe(`498:${TRANS}:reverse`);
      expect(
        preset.key(jsonRequest(createBody, { url: '/create', parsed: true, raw: false })),
      ).toBe(`498:${TRANS}:create`);
    });

    it('is undefined for an unknown operation or a missing field', () => {
      expect(preset.key(at('/webhooks/uzum/refund'))).toBeUndefined();
      expect(
        preset.key(at('/webhooks/uzum/create', { ...createBody, transId: undefined })),
      ).toBeUndefined();
      expect(
        preset.key(at('/webhooks/uzum/create', { ...createBody, serviceId: null })),
      ).toBeUndefined();
      expect(preset.key(at('/webhooks/uzum/create', '<xml/>'))).toBeUndefined();
    });
  });

  describe('pass-through', () => {
    it.each([
      '/webhooks/uzum/check',
      '/webhooks/uzum/status',
      '/webhooks/uzum/status/',
      '/webhooks/uzum/STATUS?x=1',
    ])('%s passes through', (path) => {
      expect(preset.passThrough?.(at(path))).toBe(true);
    });

    it.each([
      '/webhooks/uzum/create',
      '/webhooks/uzum/confirm',
      '/webhooks/uzum/reverse',
      '/webhooks/uzum/unknown',
    ])('%s does not', (path) => {
      expect(preset.passThrough?.(at(path))).toBe(false);
    });
  });

  describe('verify (HTTP Basic)', () => {
    it('accepts the issued credentials', () => {
      expect(preset.verify?.(at('/create'))).toBe(true);
    });

    it.each([
      ['a wrong password', basic(USER, 'wrong')],
      ['a wrong username', basic('partner-499', PASSWORD)],
      ['another scheme', 'Digest username="partner-498"'],
      ['garbage', 'Basic %%%'],
    ])('rejects %s', (_label, authorization) => {
      expect(
        preset.verify?.(jsonRequest(createBody, { url: '/create', headers: { authorization } })),
      ).toBe(false);
    });

    it('rejects a missing header', () => {
      expect(preset.verify?.(jsonRequest(createBody, { url: '/create' }))).toBe(false);
    });
  });

  it('keeps the default in-progress and unauthorized answers (Uzum recovers through /status)', () => {
    expect(preset.inProgress).toBeUndefined();
    expect(preset.unauthorized).toBeUndefined();
    expect(preset.replay).toBeUndefined();
  });

  describe('fingerprint', () => {
    it('ignores the timestamp field, includes the operation', () => {
      const a = preset.fingerprint?.(at('/create'));
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      expect(preset.fingerprint?.(at('/create', { ...createBody, timestamp: 1715678460000 }))).toBe(
        a,
      );
      expect(preset.fingerprint?.(at('/create', { ...createBody, amount: 1500100 }))).not.toBe(a);
      expect(preset.fingerprint?.(at('/confirm'))).not.toBe(a);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{ password: PASSWORD }, 'username'],
      [{ username: USER }, 'password'],
      [{ username: 'a:b', password: PASSWORD }, 'username'],
      [{ username: USER, password: 42 }, 'password'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => uzum(options as never)).toThrow(ConfigError);
      expect(() => uzum(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
