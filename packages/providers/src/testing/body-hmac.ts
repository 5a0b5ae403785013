/**
 * @module Signers of the raw-body HMAC providers of the `hmac()` family's catalogue (LINE's
 * batches, Notion's events), with the handshakes their presets answer themselves.
 */
import { FORM_TYPE, mac, objectOf, type Payload } from './common';
import {
  asHandshake,
  type Delivery,
  type DeliveryOptions,
  delivered,
  type Handshake,
  newId,
  type SignerOptions,
} from './delivery';
import { jsonPost } from './common';
import { secretOption, secretSigner } from './post';

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
