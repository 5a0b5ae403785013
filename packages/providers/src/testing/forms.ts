/**
 * @module Signers of the providers that post form fields and sign some of them (Click's MD5
 * `sign_string`, Braintree's `bt_signature` of `bt_payload`), and Braintree's challenge GET.
 */
import { createHash, randomBytes } from 'node:crypto';
import { FORM_TYPE, mac, optionsOf, placeOf, text } from './common';
import {
  type Challenge,
  challengeOf,
  type Delivery,
  type DeliveryOptions,
  deliver,
  delivered,
  type SignerOptions,
  start,
} from './delivery';

/** The fields of a Click Prepare (action 0), as Click posts them, without `sign_time` and `sign_string`. */
export interface ClickPrepare {
  readonly click_trans_id: string | number;
  readonly service_id: string | number;
  readonly click_paydoc_id?: string | number;
  readonly merchant_trans_id: string;
  readonly amount: string | number;
  readonly error?: string | number;
  readonly error_note?: string;
}

/** The fields of a Click Complete (action 1). */
export interface ClickComplete extends ClickPrepare {
  readonly merchant_prepare_id: string | number;
}

/** Click's `sign_time`: `YYYY-MM-DD HH:mm:ss` (UTC here). */
const signTime = (at: number) => new Date(at).toISOString().slice(0, 19).replace('T', ' ');

/**
 * A fake Click SHOP API: form posts whose `sign_string` is the hex MD5 of `click_trans_id +
 * service_id + SECRET_KEY + merchant_trans_id [+ merchant_prepare_id] + amount + action +
 * sign_time`; a retry is signed at its own `sign_time`.
 */
export function click(options: SignerOptions & { secretKey: string }) {
  const secret = text('click', 'secretKey', optionsOf('click', options).secretKey);
  const { url, clock } = placeOf('click', options);
  const post = (
    action: '0' | '1',
    fields: ClickPrepare & { merchant_prepare_id?: string | number },
    delivery?: DeliveryOptions,
  ): Delivery => {
    return delivered(clock, delivery, ({ at, forged }) => {
      const values: Record<string, string> = {};
      for (const [name, value] of Object.entries(fields))
        if (value !== undefined) values[name] = String(value);
      values.action = action;
      values.error ??= '0';
      values.error_note ??= 'Success';
      values.sign_time = signTime(at);
      const signed = [
        values.click_trans_id,
        values.service_id,
        forged ? `forged-${secret}` : secret,
        values.merchant_trans_id,
      ];
      if (action === '1') signed.push(values.merchant_prepare_id ?? '');
      signed.push(values.amount ?? '', action, values.sign_time);
      values.sign_string = createHash('md5').update(signed.join('')).digest('hex');
      return { url, body: new URLSearchParams(values).toString(), headers: { ...FORM_TYPE } };
    });
  };
  return {
    prepare: (fields: ClickPrepare, delivery?: DeliveryOptions): Delivery =>
      post('0', fields, delivery),
    complete: (fields: ClickComplete, delivery?: DeliveryOptions): Delivery =>
      post('1', fields, delivery),
  };
}

/** A Braintree notification: its `kind`, and its `<subject>`'s inner XML. */
export interface BraintreeNotification {
  readonly kind: string;
  readonly subject?: string;
}

/**
 * A fake Braintree: a form with `bt_payload` (the notification XML, base64 with a newline) and
 * `bt_signature` (`publicKey|<hex HMAC-SHA1 of bt_payload under the SHA-1 of the private key>`).
 * `event` takes the XML, or a kind and subject (the timestamp is the delivery's time).
 * `challenge()` is the `bt_challenge` GET the preset answers.
 */
export function braintree(options: SignerOptions & { publicKey: string; privateKey: string }) {
  const o = optionsOf('braintree', options);
  const publicKey = text('braintree', 'publicKey', o.publicKey);
  const key = createHash('sha1')
    .update(text('braintree', 'privateKey', o.privateKey))
    .digest();
  const forger = createHash('sha1').update(`forged-${o.privateKey}`).digest();
  const { url, clock } = placeOf('braintree', o);
  const signatureOf = (data: string, secret = key) =>
    `${publicKey}|${mac('sha1', secret, [data]).toString('hex')}`;
  return {
    event(notification: string | BraintreeNotification, delivery?: DeliveryOptions): Delivery {
      // The notification's own timestamp is the first attempt's time, kept by its retries.
      const { maker, attempt } = start(clock, delivery);
      const xml =
        typeof notification === 'string'
          ? notification
          : `<notification><timestamp type="datetime">${new Date(attempt.at).toISOString().replace(/\.\d{3}Z$/, 'Z')}</timestamp><kind>${notification.kind}</kind><subject>${notification.subject ?? ''}</subject></notification>`;
      const payload = `${Buffer.from(xml).toString('base64')}\n`;
      return deliver(
        ({ forged }) => ({
          url,
          body: new URLSearchParams({
            bt_signature: signatureOf(payload, forged ? forger : key),
            bt_payload: payload,
          }).toString(),
          headers: { ...FORM_TYPE },
        }),
        maker,
        attempt,
      );
    },
    challenge(challenge = randomBytes(12).toString('hex')): Challenge {
      const called = new URL(url);
      called.searchParams.set('bt_challenge', challenge);
      return challengeOf(called.toString(), clock(), signatureOf(challenge));
    },
  };
}
