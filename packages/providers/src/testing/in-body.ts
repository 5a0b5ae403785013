/**
 * @module Signers of the providers that put a signed time in the body itself: Linear's
 * `webhookTimestamp` beside its signature of the body, Mailgun's `signature` block.
 */
import { randomBytes } from 'node:crypto';
import {
  bytesOf,
  forgedSecret,
  JSON_TYPE,
  jsonPost,
  mac,
  objectOf,
  optionsOf,
  type Payload,
  placeOf,
  seconds,
  text,
} from './common';
import {
  type Delivery,
  type DeliveryOptions,
  delivered,
  newId,
  type SignerOptions,
} from './delivery';

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
  const secret = text('linear', 'secret', optionsOf('linear', options).secret);
  const { url, clock } = placeOf('linear', options);
  return {
    event(payload: Payload, delivery: LinearDeliveryOptions = {}): Delivery {
      const object = objectOf(payload);
      const id = delivery.delivery ?? newId();
      return delivered(clock, delivery, ({ at, forged }) => {
        const body = bytesOf(object ? { ...object, webhookTimestamp: Math.floor(at) } : payload);
        const key = forged ? forgedSecret(secret) : secret;
        return jsonPost(url, body, {
          'linear-delivery': id,
          ...(typeof object?.type === 'string' ? { 'linear-event': object.type } : {}),
          'linear-signature': mac('sha256', key, [body]).toString('hex'),
        });
      });
    },
  };
}

/**
 * A fake Mailgun: the event as `event-data` beside a `signature` block whose `signature` is the
 * hex HMAC-SHA256 of `timestamp` + `token` under the signing key; a retry is signed anew (its own
 * timestamp and token).
 */
export function mailgun(options: SignerOptions & { signingKey: string }) {
  const key = text('mailgun', 'signingKey', optionsOf('mailgun', options).signingKey);
  const { url, clock } = placeOf('mailgun', options);
  return {
    event(eventData: object, delivery?: DeliveryOptions): Delivery {
      const tokens: string[] = [];
      return delivered(clock, delivery, ({ at, forged, retries }) => {
        tokens[retries] ??= randomBytes(25).toString('hex');
        const timestamp = String(seconds(at));
        const token = tokens[retries]!;
        const signature = mac('sha256', forged ? forgedSecret(key) : key, [
          timestamp + token,
        ]).toString('hex');
        return {
          url,
          body: bytesOf({ signature: { timestamp, token, signature }, 'event-data': eventData }),
          headers: { ...JSON_TYPE },
        };
      });
    },
  };
}
