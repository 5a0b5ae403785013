/**
 * @module The handlers the inbox worker and the queue consumer take: one function or route set
 * (`routes()`) per provider, and which of a handler's failures no retry changes.
 */
import { ConfigError, ErrorCode, isIdempotencyError } from '../errors';
import { type Routing, routingOf } from '../routing/routes';
import type { InboxHandler } from './run';

/** A provider's entry of `handlers`: its handler, or a route set (`routes()`) whose routes run its deliveries. */
export type InboxHandlerEntry<Tx = never> = InboxHandler<Tx> | { readonly routing: Routing };

/** One handler (or route set) per provider, as the worker and the queue bridges take them. */
export type InboxHandlers<Tx = never> = Readonly<Record<string, InboxHandlerEntry<Tx>>>;

/**
 * Validates `handlers` (one function or route set per provider): the providers, and each one's
 * handler as a function (a route set's runs the route of the delivery's event).
 */
export function handlersOf<Tx>(handlers: unknown): {
  readonly providers: string[];
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
} {
  if (typeof handlers !== 'object' || handlers === null)
    throw new ConfigError('handlers', 'must be an object of one handler per provider');
  const providers = Object.keys(handlers);
  if (providers.length === 0) throw new ConfigError('handlers', 'must name at least one provider');
  const resolved: Record<string, InboxHandler<Tx>> = {};
  for (const provider of providers) {
    const entry = (handlers as Record<string, unknown>)[provider];
    const routing = routingOf(entry);
    if (routing) resolved[provider] = (delivery, context) => routing.handle(delivery, context);
    else if (typeof entry === 'function') resolved[provider] = entry as InboxHandler<Tx>;
    else
      throw new ConfigError(
        'handlers',
        `the handler for "${provider}" must be a function or a route set (routes())`,
      );
  }
  return { providers, handlers: resolved };
}

/**
 * A failure no retry changes until a deploy does: a payload its route's schema refuses, or an event
 * no route takes under `unrouted: 'refuse'`. The delivery goes `dead` at once, its error listing
 * why; redeliver it once the fix is deployed.
 */
export function isPermanent(error: unknown): boolean {
  if (!isIdempotencyError(error)) return false;
  return error.code === ErrorCode.PAYLOAD_INVALID || error.code === ErrorCode.EVENT_UNROUTED;
}
