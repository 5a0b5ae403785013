/**
 * @module GoCardless's own event type for the GoCardless preset, from `gocardless-nodejs` (an
 * optional peer): `providers.gocardless<GoCardlessEvents>({ secret })`. Types only: nothing loads
 * at run time.
 */
import type { Event } from 'gocardless-nodejs/types';
import type { EventsByType } from '../events';

/** Every GoCardless webhook event: `gocardless-nodejs`'s `Event`. */
export type GoCardlessEvent = Event;

/**
 * Each GoCardless resource type (`payments`, `mandates`, `subscriptions`…), the preset's item
 * name, to its event.
 */
export type GoCardlessEvents = EventsByType<
  Event & { readonly resource_type: NonNullable<Event['resource_type']> },
  'resource_type'
>;
