import { ConfigError } from '@webhook-idempotency/core';
import * as signers from '@webhook-idempotency/providers/testing';
import { robokassa } from '../src';
import { formRequest } from './helpers';

const PASSWORD2 = 'Pa55word2';
/**
 * Literal vectors from Robokassa's documented formula, hashed once outside this code base
 * (`printf '%s' … | md5sum`, `sha256sum`):
 *   md5("100.000000:450009:Pa55word2:Shp_item=1:Shp_login=user@example.com")
 *   sha256(the same)
 *   md5("100.000000:450009:Pa55word2") (no Shp_ parameters)
 */
const MD5 = '642288A252F7DA0A9A834E5E34665140';
const SHA256 = '890033697e2b41f2478de04946eb105bb5feccf01271dded2bd98f90d74dbcb5';
const MD5_PLAIN = '8927ba073c251631e8adb0a12a6b7b1f';
// Shp_ parameters sent out of order: the hash sorts them; unsigned fields ride along.
const RESULT = {
  OutSum: '100.000000',
  InvId: '450009',
  Fee: '3.9',
  EMail: 'buyer@example.com',
  Shp_login: 'user@example.com',
  Shp_item: '1',
  SignatureValue: MD5,
};

describe('robokassa preset', () => {
  const preset = robokassa({ password2: PASSWORD2 });

  it('describes itself, keys on InvId', () => {
    expect(preset).toMatchObject({ provider: 'robokassa', needsRawBody: false, retentionDays: 30 });
    expect(preset.key(formRequest(RESULT))).toBe('450009');
    expect(preset.eventType(formRequest(RESULT))).toBe('result');
    const { InvId: _id, ...noId } = RESULT;
    expect(preset.key(formRequest(noId))).toBeUndefined();
  });

  it('accepts the documented formula (MD5 in either case, Shp_ sorted; SHA-256 when set), raw or parsed', () => {
    expect(preset.verify?.(formRequest(RESULT))).toBe(true);
    expect(preset.verify?.(formRequest({ ...RESULT, SignatureValue: MD5.toLowerCase() }))).toBe(
      true,
    );
    expect(preset.verify?.(formRequest(RESULT, { parsed: true, raw: false }))).toBe(true);
    const sha = robokassa({ password2: PASSWORD2, signatureAlgorithm: 'sha256' });
    expect(sha.verify?.(formRequest({ ...RESULT, SignatureValue: SHA256 }))).toBe(true);
    expect(sha.verify?.(formRequest(RESULT))).toBe(false);
    const { Shp_item: _i, Shp_login: _l, ...plain } = RESULT;
    expect(preset.verify?.(formRequest({ ...plain, SignatureValue: MD5_PLAIN }))).toBe(true);
  });

  it('refuses a changed sum, invoice or Shp_ parameter, another password, no signature', () => {
    for (const changed of [
      { ...RESULT, OutSum: '100.00' },
      { ...RESULT, InvId: '450010' },
      { ...RESULT, Shp_item: '2' },
      { ...RESULT, Shp_extra: 'x' },
    ])
      expect(preset.verify?.(formRequest(changed))).toBe(false);
    const { SignatureValue: _s, ...unsigned } = RESULT;
    expect(preset.verify?.(formRequest(unsigned))).toBe(false);
    expect(robokassa({ password2: 'other' }).verify?.(formRequest(RESULT))).toBe(false);
    // Fee and EMail are not signed.
    expect(preset.verify?.(formRequest({ ...RESULT, Fee: '0' }))).toBe(true);
  });

  it('answers a refusal and an in-progress request in plain text, never OK{InvId}', () => {
    const request = formRequest(RESULT);
    const refused = preset.unauthorized?.(request);
    const busy = preset.inProgress?.(request, 4);
    expect([refused?.status, busy?.status, busy?.headers['retry-after']]).toEqual([401, 409, '4']);
    for (const record of [refused, busy]) {
      expect(record?.headers['content-type']).toMatch(/^text\/plain/);
      expect(record?.body.toString()).not.toMatch(/^OK/);
    }
  });

  it("the kit's signer makes the vector; the preset takes its delivery and both passwords while you change it", () => {
    const { SignatureValue, Fee: _f, EMail: _e, ...fields } = RESULT;
    const delivery = signers.robokassa({ password2: PASSWORD2 }).event(fields);
    expect(new URLSearchParams(delivery.body.toString()).get('SignatureValue')).toBe(
      SignatureValue,
    );
    const both = robokassa({ password2: ['old', PASSWORD2] });
    expect(both.verify?.(formRequest(delivery.body.toString()))).toBe(true);
    const old = signers.robokassa({ password2: 'old' }).event(fields);
    expect(both.verify?.(formRequest(old.body.toString()))).toBe(true);
    expect(both.verify?.(formRequest(delivery.forged().body.toString()))).toBe(false);
  });

  it('refuses bad options by name', () => {
    expect(() => robokassa({ password2: '' })).toThrow(ConfigError);
    expect(() => robokassa({ password2: PASSWORD2, signatureAlgorithm: 'crc32' as never })).toThrow(
      expect.objectContaining({ option: 'signatureAlgorithm' }),
    );
  });
});
