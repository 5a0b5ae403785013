/**
 * @module Signers of the providers that sign the URL they call (Square, Twilio) or a query
 * parameter of it (Mercado Pago): the signer's `url` must be the one the preset is given.
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import { bytesOf, FORM_TYPE, JSON_TYPE, mac, objectOf, type Payload, seconds } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { secretOption, secretSigner } from './post';

/** Options of the {@link square} signer. */
export interface SquareSignerOptions extends SignerOptions {
  /** The subscription's signature key. */
  signatureKey: string;
  /** The notification URL, exactly as in the subscription (and the preset): what Square signs and calls. */
  notificationUrl: string;
}

/** A fake Square: `x-square-hmacsha256-signature`, base64 HMAC-SHA256 of the notification URL + body. */
export function square(options: SquareSignerOptions) {
  const key = secretOption('square', options, 'signatureKey');
  const notificationUrl = secretOption('square', options, 'notificationUrl');
  const { url, post } = secretSigner('square', { ...options, url: notificationUrl }, key);
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, ({ body, key }) => ({
        'x-square-hmacsha256-signature': mac('sha256', key, [url, body]).toString('base64'),
      })),
  };
}

/** Options of the {@link twilio} signer. */
export interface TwilioSignerOptions extends SignerOptions {
  /** The account's auth token. */
  authToken: string;
}

/** Options of one Twilio request. */
export interface TwilioDeliveryOptions extends DeliveryOptions {
  /** `I-Twilio-Idempotency-Token`, kept by a retry; `null` sends none (a voice `<Gather>` action). Defaults to a new one. */
  idempotencyToken?: string | null;
}

/** Form fields, in the order they are sent. */
export type FormFields = Readonly<Record<string, string>> | readonly (readonly [string, string])[];

const pairsOf = (fields: FormFields): [string, string][] =>
  Array.isArray(fields)
    ? fields.map(([n, v]) => [n, v])
    : Object.entries(fields as Record<string, string>);

/**
 * A fake Twilio: `X-Twilio-Signature`, base64 HMAC-SHA1 of the URL and the POST parameters
 * sorted by name (each name then its value). `event(fields)` posts a form; `json(payload)` a JSON
 * body, its SHA-256 in the URL's `bodySHA256` and the URL alone signed. The signer's `url` is
 * the full URL Twilio calls: the preset's `baseUrl` and the route's path.
 */
export function twilio(options: TwilioSignerOptions) {
  const { url, post } = secretSigner(
    'twilio',
    options,
    secretOption('twilio', options, 'authToken'),
  );
  const send = (
    at: { url: string; body: Buffer; signed: string; type: object },
    delivery: TwilioDeliveryOptions,
  ) => {
    if (
      delivery.idempotencyToken !== undefined &&
      delivery.idempotencyToken !== null &&
      typeof delivery.idempotencyToken !== 'string'
    )
      throw new ConfigError(
        'idempotencyToken',
        'testing.twilio() needs idempotencyToken as a string or null',
      );
    const idempotency =
      delivery.idempotencyToken === undefined ? newId() : delivery.idempotencyToken;
    const headersOf = ({ key }: { key: string }) => ({
      ...at.type,
      ...(idempotency === null ? {} : { 'i-twilio-idempotency-token': idempotency }),
      'x-twilio-signature': mac('sha1', key, [at.signed]).toString('base64'),
    });
    return post(at.body, delivery, headersOf, at.url);
  };
  return {
    event(fields: FormFields, delivery: TwilioDeliveryOptions = {}): Delivery {
      const pairs = pairsOf(fields);
      const sorted = [...pairs].sort(([a, x], [b, y]) =>
        a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1,
      );
      const signed = url + sorted.map(([name, value]) => name + value).join('');
      const body = Buffer.from(new URLSearchParams(pairs).toString());
      return send({ url, body, signed, type: FORM_TYPE }, delivery);
    },
    json(payload: Payload, delivery: TwilioDeliveryOptions = {}): Delivery {
      const body = bytesOf(payload);
      const hashed = new URL(url);
      hashed.searchParams.set('bodySHA256', createHash('sha256').update(body).digest('hex'));
      return send(
        { url: hashed.toString(), body, signed: hashed.toString(), type: JSON_TYPE },
        delivery,
      );
    },
  };
}

/** Options of one Mercado Pago notification. */
export interface MercadoPagoDeliveryOptions extends DeliveryOptions {
  /** `x-request-id`, kept by a retry. Defaults to a new one. */
  requestId?: string;
  /** The `data.id` query parameter. Defaults to the payload's `data.id`. */
  dataId?: string;
}

/**
 * A fake Mercado Pago: `x-signature: ts=<unix>,v1=<hex HMAC-SHA256 of "id:<data.id>;request-id:<x-request-id>;ts:<ts>;">`
 * (the data id lower-cased, as the docs say), the `data.id` and `type` query parameters, and
 * `x-request-id`. The body is not signed.
 */
export function mercadopago(options: SignerOptions & { secret: string }) {
  const secret = secretOption('mercadopago', options, 'secret');
  const { url, post } = secretSigner('mercadopago', options, secret);
  return {
    event(payload: Payload, delivery: MercadoPagoDeliveryOptions = {}): Delivery {
      const object = objectOf(payload);
      const data = object?.data as { id?: unknown } | undefined;
      const dataId = delivery.dataId ?? (data?.id === undefined ? undefined : String(data.id));
      const requestId = delivery.requestId ?? newId();
      const called = new URL(url);
      if (dataId !== undefined) called.searchParams.set('data.id', dataId);
      if (typeof object?.type === 'string') called.searchParams.set('type', object.type);
      const id = dataId === undefined ? '' : `id:${dataId.toLowerCase()};`;
      const signature = ({ at, key }: { at: number; key: string }) => {
        const ts = String(seconds(at));
        const manifest = `${id}request-id:${requestId};ts:${ts};`;
        return `ts=${ts},v1=${mac('sha256', key, [manifest]).toString('hex')}`;
      };
      return post(
        payload,
        delivery,
        (signing) => ({ 'x-request-id': requestId, 'x-signature': signature(signing) }),
        called.toString(),
      );
    },
  };
}
