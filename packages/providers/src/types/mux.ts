/**
 * @module Mux's own webhook event types for the Mux preset, from `@mux/mux-node` (an optional
 * peer): `providers.mux<MuxEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { UnwrapWebhookEvent } from '@mux/mux-node/resources/webhooks/webhooks';
import type { EventsByType } from '../events';

/** Every Mux webhook event: `@mux/mux-node`'s `UnwrapWebhookEvent`. */
export type MuxEvent = UnwrapWebhookEvent;

/** Each Mux event name (`video.asset.ready`) to its event. */
export type MuxEvents = EventsByType<UnwrapWebhookEvent>;
