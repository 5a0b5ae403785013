/**
 * @module Signers of the providers that authenticate with a static secret instead of a signature
 * and are not the first of their kind (Chargebee's HTTP Basic…). A retry is the same request;
 * the forged copy carries another password or token.
 */
import { basicOptions, type BasicSignerOptions, withCredential } from './credentials';
import type { Delivery, DeliveryOptions } from './delivery';
import type { Payload } from './common';

/** A fake Chargebee: the event with the Basic credentials of the webhook URL. */
export function chargebee(options: BasicSignerOptions) {
  const send = withCredential('chargebee', options, basicOptions('chargebee', options));
  return {
    event: (event: Payload, delivery?: DeliveryOptions): Delivery => send(event, delivery),
  };
}
