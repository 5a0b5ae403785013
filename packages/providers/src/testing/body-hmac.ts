/**
 * @module Signers of the raw-body HMAC providers of the `hmac()` family's catalogue (LINE's and
 * GoCardless's batches, Notion's and Viber's events), with the handshakes their presets answer themselves.
 */
import { randomUUID } from 'node:crypto';
import { FORM_TYPE, mac, objectOf, type Payload } from './common';
import type { Delivery, DeliveryOptions, Handshake, SignerOptions } from './delivery';
import { asHandshake, delivered, newId } from './delivery';
import { jsonPost } from './common';
import { type HeadersOf, secretOption, secretSigner } from './post';

/** Options of the {@link line} signer. */
export interface LineSignerOptions extends SignerOptions {
  /** The channel secret. */
  channelSecret: string;
  /** The bot's user id, the body's `destination`. Defaults to a fixed one. */
  destination?: string;
}

/** Marks each event of a redelivery as one (`deliveryContext.isRedelivery: true`). */
const redelivered = (events: readonly object[], retries: number) =>
  retries === 0
    ? events
    : events.map((event) => ({ ...event, deliveryContext: { isRedelivery: true } }));

/**
 * A fake LINE Messaging API: `{ destination, events }`, `x-line-signature` the base64
 * HMAC-SHA256 of the body under the channel secret. `batch(events)` sends the events as given (a
 * redelivery marks each `deliveryContext.isRedelivery`); `verification()` is the console's
 * "Verify" request (`events: []`), answered `{}`.
 */
export function line(options: LineSignerOptions) {
  const secret = secretOption('line', options, 'channelSecret');
  const destination = options.destination ?? 'U00000000000000000000000000000000';
  const { post } = secretSigner('line', options, secret);
  const send = (events: readonly object[], delivery?: DeliveryOptions): Delivery =>
    post(
      ({ retries }): Payload => ({ destination, events: redelivered(events, retries) }),
      delivery,
      ({ body, key }) => ({ 'x-line-signature': mac('sha256', key, [body]).toString('base64') }),
    );
  return {
    batch: send,
    event: (event: object, delivery?: DeliveryOptions): Delivery => send([event], delivery),
    verification: (delivery?: DeliveryOptions): Handshake => asHandshake(send([], delivery), '{}'),
  };
}

/** Options of the {@link notion} signer. */
export interface NotionSignerOptions extends SignerOptions {
  /** The subscription's verification token, the key Notion signs with. */
  verificationToken: string;
}

/**
 * A fake Notion: `X-Notion-Signature: sha256=<hex HMAC-SHA256 of the body>` under the
 * verification token; a retry raises the payload's `attempt_number`. `verification()` is the
 * one-time, unsigned `{"verification_token": …}` POST, answered `{}`; its forged copy carries a
 * signature (a verification never does), so it is refused.
 */
export function notion(options: NotionSignerOptions) {
  const token = secretOption('notion', options, 'verificationToken');
  const { post, url, clock } = secretSigner('notion', options, token);
  const signature = (body: Buffer, key: string) =>
    `sha256=${mac('sha256', key, [body]).toString('hex')}`;
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(
        ({ retries }): Payload => {
          const object = objectOf(payload);
          const tries = object?.attempt_number;
          return retries > 0 && typeof tries === 'number'
            ? { ...object, attempt_number: tries + retries }
            : payload;
        },
        delivery,
        ({ body, key }) => ({ 'x-notion-signature': signature(body, key) }),
      ),
    verification: (delivery?: DeliveryOptions): Handshake =>
      asHandshake(
        delivered(clock, delivery, ({ forged }) => {
          const body = Buffer.from(JSON.stringify({ verification_token: token }));
          const headers: Record<string, string> = forged
            ? { 'x-notion-signature': signature(body, `forged-${token}`) }
            : {};
          return jsonPost(url, body, headers);
        }),
        '{}',
      ),
  };
}

/** Options of the {@link woocommerce} signer. */
export interface WooCommerceSignerOptions extends SignerOptions {
  /** The webhook's secret. */
  secret: string;
  /** The webhook's topic, `X-WC-Webhook-Topic`. Defaults to `order.updated`. */
  topic?: string;
  /** The webhook's id, `X-WC-Webhook-ID` and the ping's `webhook_id`. Defaults to 1. */
  webhookId?: number;
  /** The store's URL, `X-WC-Webhook-Source`. Defaults to `https://shop.example.com/`. */
  source?: string;
}

/**
 * A fake WooCommerce store: the resource as JSON, `X-WC-Webhook-Signature` the base64
 * HMAC-SHA256 of the body under the webhook's secret, with the topic, resource, event, source,
 * webhook id and a new delivery id per attempt (WooCommerce itself never retries). `ping()` is the
 * unsigned `webhook_id=<id>` form POST sent when the webhook is created, answered 200 with an empty
 * body; its forged copy carries a signature (a ping never does), so it is refused.
 */
export function woocommerce(options: WooCommerceSignerOptions) {
  const secret = secretOption('woocommerce', options, 'secret');
  const topic = options.topic ?? 'order.updated';
  const webhookId = String(options.webhookId ?? 1);
  const { post, url, clock } = secretSigner('woocommerce', options, secret);
  const [resource = topic, event = ''] = topic.split('.');
  const named = {
    'x-wc-webhook-source': options.source ?? 'https://shop.example.com/',
    'x-wc-webhook-topic': topic,
    'x-wc-webhook-resource': resource,
    'x-wc-webhook-event': event,
    'x-wc-webhook-id': webhookId,
  };
  const signature = (body: Buffer, key: string) => mac('sha256', key, [body]).toString('base64');
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, ({ body, key }) => ({
        ...named,
        'x-wc-webhook-signature': signature(body, key),
        'x-wc-webhook-delivery-id': newId().replaceAll('-', ''),
      })),
    ping: (delivery?: DeliveryOptions): Handshake =>
      asHandshake(
        delivered(clock, delivery, ({ forged }) => {
          const body = Buffer.from(`webhook_id=${webhookId}`);
          const headers: Record<string, string> = forged
            ? { 'x-wc-webhook-signature': signature(body, `forged-${secret}`) }
            : {};
          return { url, body, headers: { ...FORM_TYPE, ...headers } };
        }),
        '',
      ),
  };
}

/** Options of the {@link gocardless} signer. */
export interface GoCardlessSignerOptions extends SignerOptions {
  /** The webhook endpoint's secret. */
  secret: string;
}

/** A webhook id as GoCardless mints them: `WB` and twelve upper-case letters or digits. */
const webhookId = () => `WB${randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`;

/**
 * A fake GoCardless: `{ events, meta: { webhook_id } }`, `Webhook-Signature` the hex HMAC-SHA256
 * of the body under the endpoint's secret. `batch(events)` sends the events as given; a retry
 * sends the same bytes (the same webhook again).
 */
export function gocardless(options: GoCardlessSignerOptions) {
  const secret = secretOption('gocardless', options, 'secret');
  const { post } = secretSigner('gocardless', options, secret);
  const send = (events: readonly object[], delivery?: DeliveryOptions): Delivery =>
    post({ events, meta: { webhook_id: webhookId() } }, delivery, ({ body, key }) => ({
      'webhook-signature': mac('sha256', key, [body]).toString('hex'),
    }));
  return {
    batch: send,
    event: (event: object, delivery?: DeliveryOptions): Delivery => send([event], delivery),
  };
}

/** Options of the {@link viber} signer. */
export interface ViberSignerOptions extends SignerOptions {
  /** The bot's authentication token, the key Viber signs with. */
  authToken: string;
}

/**
 * A fake Viber bot API: `X-Viber-Content-Signature` the hex HMAC-SHA256 of the body under the
 * bot's token. `event(payload)` sends the callback as given (a payload may be JSON text, to carry
 * a 64-bit `message_token` exactly); `webhookCallback()` is the signed `event: "webhook"` callback
 * of setting the webhook, answered `{}`.
 */
export function viber(options: ViberSignerOptions) {
  const token = secretOption('viber', options, 'authToken');
  const { post, clock } = secretSigner('viber', options, token);
  const headersOf: HeadersOf = ({ body, key }) => ({
    'x-viber-content-signature': mac('sha256', key, [body]).toString('hex'),
  });
  return {
    event: (payload: Payload, delivery?: DeliveryOptions): Delivery =>
      post(payload, delivery, headersOf),
    webhookCallback: (delivery?: DeliveryOptions): Handshake =>
      asHandshake(
        post(
          `{"event":"webhook","timestamp":${clock()},"chat_hostname":"SN-000_","message_token":5741311803571721087}`,
          delivery,
          headersOf,
        ),
        '{}',
      ),
  };
}
