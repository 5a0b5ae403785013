/**
 * @module Signers of the providers that put a signed time in the body itself: Linear's
 * `webhookTimestamp` beside its signature of the body, Mailgun's `signature` block.
 */
import { randomBytes } from 'node:crypto';
import { mac, objectOf, type Payload, seconds } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { secretOption, secretSigner } from './post';

/** Options of one Linear delivery. */
export interface LinearDeliveryOptions extends DeliveryOptions {
  /** `Linear-Delivery`, kept by a retry. Defaults to a new one. */
  delivery?: string;
}

/**
 * A fake Linear: `Linear-Signature`, hex HMAC-SHA256 of the body, whose `webhookTimestamp`
 * (milliseconds) the signer sets to the time of each attempt on an object payload;
 * `Linear-Delivery` and `Linear-Event` (the payload's `type`).
 */
export function linear(options: SignerOptions & { secret: string }) {
  const { post } = secretSigner('linear', options, secretOption('linear', options, 'secret'));
  return {
    event(payload: Payload, delivery: LinearDeliveryOptions = {}): Delivery {
      const object = objectOf(payload);
      const id = delivery.delivery ?? newId();
      const stamped = ({ at }: { at: number }) =>
        object ? { ...object, webhookTimestamp: Math.floor(at) } : payload;
      return post(stamped, delivery, ({ body, key }) => ({
        'linear-delivery': id,
        ...(typeof object?.type === 'string' ? { 'linear-event': object.type } : {}),
        'linear-signature': mac('sha256', key, [body]).toString('hex'),
      }));
    },
  };
}

/**
 * A fake Mailgun: the event as `event-data` beside a `signature` block whose `signature` is the
 * hex HMAC-SHA256 of `timestamp` + `token` under the signing key; a retry is signed anew (its own
 * timestamp and token).
 */
export function mailgun(options: SignerOptions & { signingKey: string }) {
  const { post } = secretSigner('mailgun', options, secretOption('mailgun', options, 'signingKey'));
  return {
    event(eventData: object, delivery?: DeliveryOptions): Delivery {
      const tokens: string[] = [];
      const signed = ({ at, retries, key }: { at: number; retries: number; key: string }) => {
        tokens[retries] ??= randomBytes(25).toString('hex');
        const timestamp = String(seconds(at));
        const token = tokens[retries]!;
        const signature = mac('sha256', key, [timestamp + token]).toString('hex');
        return { signature: { timestamp, token, signature }, 'event-data': eventData };
      };
      return post(signed, delivery, () => ({}));
    },
  };
}
