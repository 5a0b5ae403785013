/**
 * @module Signers of the providers that sign the raw body alone with an HMAC and send several
 * events in one request (LINE), with the handshakes the presets answer themselves.
 */
import { mac, type Payload } from './common';
import {
  asHandshake,
  type Delivery,
  type DeliveryOptions,
  type Handshake,
  type SignerOptions,
} from './delivery';
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
