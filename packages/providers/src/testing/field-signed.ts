/**
 * @module Signers of the providers that sign with a plain hash or over chosen fields rather than an
 * HMAC of the body: Cloudinary's SHA-1/SHA-256 of body + timestamp + API secret, Dropbox Sign's
 * HMAC of the event's time and type only, in a multipart form; T-Bank's SHA-256 `Token` of the
 * sorted root values and the terminal password; Robokassa's hash of `OutSum:InvId:Password#2`
 * and the `Shp_` parameters; Mandrill's HMAC-SHA1 of its webhook URL and sorted POST parameters;
 * PagerDuty's list of `v1=` HMACs, one per secret.
 */
import { createHash } from 'node:crypto';
import {
  FORM_TYPE,
  forgedSecret,
  mac,
  optionsOf,
  type Payload,
  placeOf,
  type Secrets,
  seconds,
  secretsOf,
} from './common';
import {
  asHandshake,
  type Delivery,
  type DeliveryOptions,
  deliver,
  type Handshake,
  type SignerOptions,
  start,
} from './delivery';
import { secretOption, secretSigner } from './post';

/** Options of the {@link cloudinary} signer. */
export interface CloudinarySignerOptions extends SignerOptions {
  apiSecret: string;
  /** The digest to sign with, as the account's setting says. Defaults to `'sha1'`. */
  signatureAlgorithm?: 'sha1' | 'sha256';
}

/**
 * A fake Cloudinary: `X-Cld-Timestamp` (Unix seconds of the attempt) and `X-Cld-Signature`, the
 * hex SHA-1 (or SHA-256) of the body, the timestamp and the API secret run together; a retry is
 * stamped and signed anew, its body unchanged.
 */
export function cloudinary(options: CloudinarySignerOptions) {
  const secret = secretOption('cloudinary', options, 'apiSecret');
  const algorithm = options.signatureAlgorithm ?? 'sha1';
  const { post } = secretSigner('cloudinary', options, secret);
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, ({ body, at, key }) => {
        const timestamp = String(seconds(at));
        const hash = createHash(algorithm).update(body).update(timestamp).update(key);
        return { 'x-cld-timestamp': timestamp, 'x-cld-signature': hash.digest('hex') };
      }),
  };
}

/** Options of one Dropbox Sign event. */
export interface DropboxSignDeliveryOptions extends DeliveryOptions {
  /** The event's `event_metadata` (`related_signature_id`, `reported_for_account_id`…). */
  metadata?: Readonly<Record<string, unknown>>;
}

/** Options of the {@link dropboxSign} signer. */
export interface DropboxSignSignerOptions extends SignerOptions {
  apiKey: string;
  /**
   * How the form is encoded: `'multipart'`, as Dropbox Sign posts it, or `'urlencoded'` (the same
   * `json` field) for a test app whose body parser reads no multipart. Defaults to `'multipart'`.
   */
  form?: 'multipart' | 'urlencoded';
}

/** A form whose only part is `json`, as Dropbox Sign posts it. */
function jsonPart(json: string, boundary: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="json"\r\n\r\n${json}\r\n--${boundary}--\r\n`;
}

/**
 * A fake Dropbox Sign: a multipart form whose `json` part holds the callback, with `event`
 * (`event_time` the first attempt's Unix seconds, as text; `event_type`; `event_hash`, the hex
 * HMAC-SHA256 of the two under the API key) beside the payload's objects. A re-send carries the
 * same event under a new multipart boundary. `callbackTest()` is the event sent when the callback
 * URL is set, with the answer Dropbox Sign expects.
 */
export function dropboxSign(options: DropboxSignSignerOptions) {
  const apiKey = secretOption('dropboxSign', options, 'apiKey');
  const { url, clock } = placeOf('dropboxSign', options, '/webhooks/dropbox-sign');
  const event = (type: string, payload: object = {}, delivery: DropboxSignDeliveryOptions = {}) => {
    const { maker, attempt } = start(clock, delivery);
    const time = String(seconds(attempt.at));
    return deliver(
      ({ retries, forged }) => {
        const key = forged ? forgedSecret(apiKey) : apiKey;
        const hash = mac('sha256', key, [time + type]).toString('hex');
        const fields = { event_time: time, event_type: type, event_hash: hash };
        const body = { event: { ...fields, event_metadata: delivery.metadata ?? {} }, ...payload };
        const json = JSON.stringify(body);
        if (options.form === 'urlencoded')
          return { url, body: new URLSearchParams({ json }).toString(), headers: { ...FORM_TYPE } };
        const boundary = `dropbox-sign-kit-${retries}`;
        return {
          url,
          body: jsonPart(json, boundary),
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        };
      },
      maker,
      attempt,
    );
  };
  return {
    event: (type: string, payload?: object, delivery?: DropboxSignDeliveryOptions): Delivery =>
      event(type, payload, delivery),
    callbackTest: (payload?: object, delivery?: DeliveryOptions): Handshake =>
      asHandshake(event('callback_test', payload, delivery), 'Hello API Event Received'),
  };
}

/** A T-Bank notification's root fields, without `Token` (nested `Data` or `Receipt` allowed, unsigned). */
export type TBankNotification = Readonly<Record<string, unknown>>;

/**
 * A fake T-Bank acquiring: a JSON notification whose `Token` is the hex SHA-256 of the values of
 * its root strings, numbers and booleans sorted by name, `Password` among them; a retry is the
 * same bytes.
 */
export function tbank(options: SignerOptions & { password: string }) {
  const { post } = secretSigner('tbank', options, secretOption('tbank', options, 'password'));
  const token = (fields: TBankNotification, password: string) => {
    const signed: Record<string, unknown> = { ...fields, Password: password };
    const names = Object.keys(signed)
      .filter((name) => ['string', 'number', 'boolean'].includes(typeof signed[name]))
      .sort();
    const text = names.map((name) => String(signed[name])).join('');
    return createHash('sha256').update(text, 'utf8').digest('hex');
  };
  return {
    event: (fields: TBankNotification, delivery?: DeliveryOptions): Delivery =>
      post(
        ({ key }) => ({ ...fields, Token: token(fields, key) }),
        delivery,
        () => ({}),
      ),
  };
}

/** Options of the {@link robokassa} signer. */
export interface RobokassaSignerOptions extends SignerOptions {
  password2: string;
  /** The shop's hash. Defaults to `'md5'`. */
  signatureAlgorithm?: 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512' | 'ripemd160';
}

/** A ResultURL notification's fields, without `SignatureValue` (`Shp_` parameters among them). */
export interface RobokassaResult {
  readonly OutSum: string;
  readonly InvId: string | number;
  readonly [field: string]: string | number;
}

/**
 * A fake Robokassa: a form POST of the ResultURL fields with `SignatureValue`, the upper-case hex
 * hash of `OutSum:InvId:Password#2` and the `Shp_name=value` pairs in alphabetical order; a retry
 * is the same bytes.
 */
export function robokassa(options: RobokassaSignerOptions) {
  const password = secretOption('robokassa', options, 'password2');
  const algorithm = optionsOf('robokassa', options).signatureAlgorithm ?? 'md5';
  const { url, clock } = placeOf('robokassa', options);
  const sign = (fields: RobokassaResult, key: string) => {
    const custom = Object.keys(fields)
      .filter((name) => name.toLowerCase().startsWith('shp_'))
      .sort()
      .map((name) => `${name}=${fields[name]}`);
    const text = [fields.OutSum, fields.InvId, key, ...custom].join(':');
    return createHash(algorithm).update(text).digest('hex').toUpperCase();
  };
  return {
    event(fields: RobokassaResult, delivery?: DeliveryOptions): Delivery {
      const { maker, attempt } = start(clock, delivery);
      return deliver(
        ({ forged }) => {
          const values: Record<string, string> = {};
          for (const [name, value] of Object.entries(fields)) values[name] = String(value);
          values.SignatureValue = sign(fields, forged ? forgedSecret(password) : password);
          return { url, body: new URLSearchParams(values).toString(), headers: { ...FORM_TYPE } };
        },
        maker,
        attempt,
      );
    },
  };
}

/**
 * A fake Mailchimp Transactional (Mandrill): a form POST of `mandrill_events` (the events as a
 * JSON array) with `X-Mandrill-Signature`, the base64 HMAC-SHA1 of the signer's URL (the webhook
 * URL as entered in Mandrill) and `mandrill_events` + its value; a retry is the same bytes.
 */
export function mandrill(options: SignerOptions & { webhookKey: string }) {
  const key = secretOption('mandrill', options, 'webhookKey');
  const { url, clock } = placeOf('mandrill', options);
  return {
    batch(events: readonly object[], delivery?: DeliveryOptions): Delivery {
      const json = JSON.stringify(events);
      const { maker, attempt } = start(clock, delivery);
      return deliver(
        ({ forged }) => {
          const signature = mac('sha1', forged ? forgedSecret(key) : key, [
            `${url}mandrill_events${json}`,
          ]);
          return {
            url,
            body: new URLSearchParams({ mandrill_events: json }).toString(),
            headers: { ...FORM_TYPE, 'x-mandrill-signature': signature.toString('base64') },
          };
        },
        maker,
        attempt,
      );
    },
  };
}

/**
 * A fake PagerDuty V3 webhook: `X-PagerDuty-Signature`, `v1=<hex HMAC-SHA256 of the body>` for each
 * secret given, comma-separated (several while one is rotated); a retry is the same bytes.
 */
export function pagerduty(options: SignerOptions & { secret: Secrets }) {
  const secrets = secretsOf('pagerduty', 'secret', optionsOf('pagerduty', options).secret);
  const { post } = secretSigner('pagerduty', options, secrets);
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, ({ body, keys }) => ({
        'x-pagerduty-signature': keys
          .map((key) => `v1=${mac('sha256', key, [body]).toString('hex')}`)
          .join(','),
      })),
  };
}
