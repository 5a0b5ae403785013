/**
 * @module WorkOS's own webhook event types for the WorkOS preset, from `@workos-inc/node` (an
 * optional peer): `providers.workos<WorkOSEvents>({ secret })`. Types only: nothing loads at run
 * time. These are the events as the body holds them (snake_case, dates as strings), not the
 * camelCase objects the SDK makes of them.
 */
import type { EventResponse } from '@workos-inc/node';
import type { EventsByType } from '../events';

/** Every WorkOS webhook event this SDK version names, as sent: `@workos-inc/node`'s `EventResponse` without its catch-all. */
export type WorkOSEvent = Exclude<EventResponse, { readonly data: never }>;

/** Each WorkOS event name (`user.created`) to its event. */
export type WorkOSEvents = EventsByType<WorkOSEvent, 'event'>;
