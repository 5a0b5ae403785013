/**
 * @module LINE's own webhook event types for the LINE preset, from `@line/bot-sdk` (an optional
 * peer): `providers.line<LineEvents>({ channelSecret })`. Types only: nothing loads at run time.
 */
import type { webhook } from '@line/bot-sdk';
import type { EventsByType } from '../events';

/** Every LINE webhook event: `@line/bot-sdk`'s `webhook.Event`. */
export type LineEvent = webhook.Event;

/** Each LINE event type (`message`, `follow`, `postback`…) to its event. */
export type LineEvents = EventsByType<webhook.Event>;
