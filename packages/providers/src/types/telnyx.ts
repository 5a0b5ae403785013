/**
 * @module Telnyx's own webhook event types for the Telnyx preset, from `telnyx` (an optional
 * peer): `providers.telnyx<TelnyxEvents>({ publicKey })`. Types only: nothing loads at run time.
 */
import type { UnwrapWebhookEvent } from 'telnyx/resources/webhooks';

/** Every Telnyx webhook event: `telnyx`'s `UnwrapWebhookEvent`. */
export type TelnyxEvent = UnwrapWebhookEvent;

/** The event name a Telnyx event carries in `data.event_type`. */
type NameOf<E> = E extends { readonly data?: { readonly event_type?: infer N } }
  ? Extract<N, string>
  : never;

/** Each Telnyx event name (`eventType(request)`: `message.received`) to its events. */
export type TelnyxEvents = {
  [Name in NameOf<UnwrapWebhookEvent>]: Extract<
    UnwrapWebhookEvent,
    { readonly data?: { readonly event_type?: Name } }
  >;
};
