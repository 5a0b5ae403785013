/**
 * @module Chargebee's own webhook event types for the Chargebee preset, from `chargebee` (an
 * optional peer): `providers.chargebee<ChargebeeEvents>({ username, password })`. Types only:
 * nothing loads at run time.
 */
import type { WebhookEvent, WebhookEventType } from 'chargebee';

/**
 * Each Chargebee event type (`subscription_created`, `invoice_generated`…), the preset's event
 * name, to its event: `chargebee`'s `WebhookEvent` of that type, its `content` typed for it and
 * its `event_type` narrowed to the name.
 */
export type ChargebeeEvents = {
  [Type in WebhookEventType as `${Type}`]: WebhookEvent<Type> & { readonly event_type: `${Type}` };
};

/** Every Chargebee webhook event, as one union. */
export type ChargebeeEvent = ChargebeeEvents[keyof ChargebeeEvents];
