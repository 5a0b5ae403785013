/**
 * @module Slack's own event types for the Slack preset, from `@slack/types` (an optional peer):
 * `providers.slack<SlackEvents>({ signingSecret })`. Types only: nothing loads at run time.
 */
import type { SlackEvent } from '@slack/types';
import type { EventsByType } from '../events';
import type { SlackMinimalEnvelope } from '../timestamped-members';

/** Each inner event name (`eventType(request)`) to its Events API delivery, the event typed by `@slack/types`. */
export type SlackEvents = {
  [Name in keyof EventsByType<SlackEvent>]: SlackMinimalEnvelope<EventsByType<SlackEvent>[Name]>;
};

export type { SlackEvent };
