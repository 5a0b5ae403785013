/**
 * @module OpenAI's own webhook event types for the OpenAI preset, from `openai` (an optional
 * peer): `providers.openai<OpenAIEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { UnwrapWebhookEvent } from 'openai/resources/webhooks';
import type { EventsByType } from '../events';

/** Every OpenAI webhook event: `openai`'s `UnwrapWebhookEvent`. */
export type OpenAIEvent = UnwrapWebhookEvent;

/** Each OpenAI event name (`response.completed`) to its event. */
export type OpenAIEvents = EventsByType<UnwrapWebhookEvent>;
