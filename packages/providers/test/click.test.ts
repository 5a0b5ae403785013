import { ConfigError } from '@webhook-idempotency/core';
import { click } from '../src';
import { bodyJson, formRequest, storedJson } from './helpers';

const SECRET = 'Xq7dVb2Lk9pR4sT1';

/**
 * Literal vectors derived by hand from Click's documented formula (docs/providers.md#click) and hashed
 * once outside this code base (`printf '%s' … | md5sum`):
 *   Prepare : md5("2263123456" + "23456" + SECRET + "1042" + "15000.00" + "0" + "2024-05-14 10:31:05")
 *   Complete: md5("2263123456" + "23456" + SECRET + "1042" + "77" + "15000.00" + "1" + "2024-05-14 10:31:40")
 */
const PREPARE_SIGN = 'ce278c7435bd74a056229c6746d1df7d';
const COMPLETE_SIGN = '3827664d47c371f05983f01670c89403';

const prepare = {
  click_trans_id: '2263123456',
  service_id: '23456',
  click_paydoc_id: '3712345678',
  merchant_trans_id: '1042',
  amount: '15000.00',
  action: '0',
  error: '0',
  error_note: 'Success',
  sign_time: '2024-05-14 10:31:05',
  sign_string: PREPARE_SIGN,
};

const complete = {
  ...prepare,
  merchant_prepare_id: '77',
  action: '1',
  sign_time: '2024-05-14 10:31:40',
  sign_string: COMPLETE_SIGN,
};

describe('click preset', () => {
  const preset = click({ secretKey: SECRET });

  it('describes itself', () => {
    expect(preset).toMatchObject({ provider: 'click', needsRawBody: false, retentionDays: 3650 });
  });

  describe('key', () => {
    it('is click_trans_id:action for Prepare', () => {
      expect(preset.key(formRequest(prepare))).toBe('2263123456:0');
    });

    it('adds the outcome class for Complete: ok, or cancel when error < 0', () => {
      expect(preset.key(formRequest(complete))).toBe('2263123456:1:ok');
      expect(
        preset.key(
          formRequest({ ...complete, error: '-5017', error_note: 'Transaction cancelled' }),
        ),
      ).toBe('2263123456:1:cancel');
    });

    it('keeps 64-bit ids exactly as received', () => {
      expect(preset.key(formRequest({ ...prepare, click_trans_id: '9223372036854775807' }))).toBe(
        '9223372036854775807:0',
      );
    });

    it('reads a parsed form body when the raw bytes are not available', () => {
      expect(preset.key(formRequest(complete, { parsed: true, raw: false }))).toBe(
        '2263123456:1:ok',
      );
    });

    it('is undefined without click_trans_id, action, or a numeric error on Complete', () => {
      const { click_trans_id: _id, ...noId } = prepare;
      const { action: _action, ...noAction } = prepare;
      expect(preset.key(formRequest(noId))).toBeUndefined();
      expect(preset.key(formRequest(noAction))).toBeUndefined();
      expect(preset.key(formRequest({ ...complete, error: 'x' }))).toBeUndefined();
    });
  });

  describe('pass-through', () => {
    it('lets an unknown action through (the handler answers -3), guards Prepare and Complete', () => {
      expect(preset.passThrough?.(formRequest({ ...prepare, action: '2' }))).toBe(true);
      expect(preset.passThrough?.(formRequest(prepare))).toBe(false);
      expect(preset.passThrough?.(formRequest(complete))).toBe(false);
    });
  });

  describe('verify (sign_string)', () => {
    it('accepts the hand-derived Prepare and Complete vectors, from raw bytes or a parsed body', () => {
      expect(preset.verify?.(formRequest(prepare))).toBe(true);
      expect(preset.verify?.(formRequest(complete))).toBe(true);
      expect(preset.verify?.(formRequest(complete, { parsed: true, raw: false }))).toBe(true);
    });

    it('reads the fields as decoded from the wire (space as + or %20)', () => {
      const raw = new URLSearchParams(prepare).toString();
      expect(raw).toContain('sign_time=2024-05-14+10%3A31%3A05');
      expect(preset.verify?.(formRequest(raw.replace('+', '%20')))).toBe(true);
    });

    it('accepts an upper-case hex signature', () => {
      expect(
        preset.verify?.(formRequest({ ...prepare, sign_string: PREPARE_SIGN.toUpperCase() })),
      ).toBe(true);
    });

    it('signs a cancellation Complete with the same formula (error is not signed)', () => {
      expect(preset.verify?.(formRequest({ ...complete, error: '-5017' }))).toBe(true);
    });

    it.each([
      ['a wrong secret', click({ secretKey: 'another-secret' }), prepare],
      ['a re-formatted amount', click({ secretKey: SECRET }), { ...prepare, amount: '15000' }],
      ['a tampered order', click({ secretKey: SECRET }), { ...prepare, merchant_trans_id: '1043' }],
      [
        'Complete without merchant_prepare_id',
        click({ secretKey: SECRET }),
        { ...prepare, action: '1' },
      ],
      [
        'a truncated signature',
        click({ secretKey: SECRET }),
        { ...prepare, sign_string: PREPARE_SIGN.slice(0, 31) },
      ],
      [
        'a non-hex signature',
        click({ secretKey: SECRET }),
        { ...prepare, sign_string: 'z'.repeat(32) },
      ],
    ])('rejects %s', (_label, checker, fields) => {
      expect(checker.verify?.(formRequest(fields))).toBe(false);
    });

    it('rejects a missing sign_string or sign_time, and an empty body, without throwing', () => {
      const { sign_string: _s, ...noSign } = prepare;
      const { sign_time: _t, ...noTime } = prepare;
      expect(preset.verify?.(formRequest(noSign))).toBe(false);
      expect(preset.verify?.(formRequest(noTime))).toBe(false);
      expect(preset.verify?.(formRequest(''))).toBe(false);
    });
  });

  describe('answers', () => {
    it('unauthorized: HTTP 200, error -1 SIGN CHECK FAILED, ids kept exact', () => {
      const answer = preset.unauthorized?.(
        formRequest({ ...prepare, click_trans_id: '9223372036854775807', sign_string: 'bad' }),
      );
      expect(answer?.status).toBe(200);
      expect(answer?.body.toString()).toBe(
        '{"click_trans_id":9223372036854775807,"merchant_trans_id":"1042","error":-1,"error_note":"SIGN CHECK FAILED"}',
      );
    });

    it('keeps the default in-progress answer', () => {
      expect(preset.inProgress).toBeUndefined();
    });
  });

  describe('replay', () => {
    const completed =
      '{"click_trans_id":9223372036854775807,"merchant_trans_id":"1042","merchant_confirm_id":91,"error":0,"error_note":"Success"}';

    it('answers a repeated successful Complete with -4 Already paid, without rounding the 64-bit id', () => {
      const replayed = preset.replay?.(storedJson(completed), formRequest(complete));
      expect(replayed?.body.toString()).toBe(
        '{"click_trans_id":9223372036854775807,"merchant_trans_id":"1042","merchant_confirm_id":91,"error":-4,"error_note":"Already paid"}',
      );
    });

    it("replays unchanged with repeatedComplete: 'replay'", () => {
      const stored = storedJson(completed);
      expect(
        click({ secretKey: SECRET, repeatedComplete: 'replay' }).replay?.(
          stored,
          formRequest(complete),
        ),
      ).toBe(stored);
    });

    it('replays Prepare, a cancellation and a stored error unchanged', () => {
      const prepared = storedJson(
        '{"click_trans_id":2263123456,"merchant_trans_id":"1042","merchant_prepare_id":77,"error":0,"error_note":"Success"}',
      );
      expect(preset.replay?.(prepared, formRequest(prepare))).toBe(prepared);
      const cancelled = storedJson(
        '{"click_trans_id":2263123456,"error":-9,"error_note":"Transaction cancelled"}',
      );
      expect(preset.replay?.(cancelled, formRequest({ ...complete, error: '-5017' }))).toBe(
        cancelled,
      );
      const failed = storedJson(
        '{"click_trans_id":2263123456,"error":-2,"error_note":"Incorrect parameter amount"}',
      );
      expect(preset.replay?.(failed, formRequest(complete))).toBe(failed);
      expect(bodyJson(failed)).toMatchObject({ error: -2 });
    });
  });

  describe('fingerprint', () => {
    it('ignores sign_time, sign_string and error_note, which a re-signed retry may change', () => {
      const a = preset.fingerprint?.(formRequest(complete));
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      expect(
        preset.fingerprint?.(
          formRequest({
            ...complete,
            sign_time: '2024-05-14 10:32:40',
            sign_string: 'x',
            error_note: 'ok',
          }),
        ),
      ).toBe(a);
      expect(preset.fingerprint?.(formRequest({ ...complete, amount: '15001.00' }))).not.toBe(a);
    });
  });

  describe('options', () => {
    it.each([
      [undefined, 'options'],
      [{}, 'secretKey'],
      [{ secretKey: '' }, 'secretKey'],
      [{ secretKey: SECRET, repeatedComplete: 'never' }, 'repeatedComplete'],
    ])('%j throws a ConfigError naming %s', (options, option) => {
      expect(() => click(options as never)).toThrow(ConfigError);
      expect(() => click(options as never)).toThrow(expect.objectContaining({ option }));
    });
  });
});
