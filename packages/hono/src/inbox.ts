/** @module `inbox(options)`: the Hono inbox endpoint. Translates in, calls the inbox engine, translates out. */
import type { InboxOptions } from '@webhook-idempotency/core';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { toHttpRequest, toResponse } from './translate';

/** Options of {@link inbox}: the inbox options of every adapter, with Hono's `Context` in the callbacks. */
export type HonoInboxOptions = InboxOptions<Context>;

/**
 * Inbox mode (docs/inbox.md): verifies the signature, stores the delivery's exact bytes and
 * answers 2xx at once; a worker (`createInboxWorker`) or a queue bridge processes it later,
 * exactly once. A bad signature answers 401 and stores nothing; a store failure 503 so the
 * provider retries; a delivery already stored 2xx again without a second row. A request it hands
 * on (a read, `onMissingKey: 'passthrough'`) goes to the next handler. Limit the body with Hono's
 * `bodyLimit()` before it.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * app.post('/webhooks/stripe', inbox({ inbox: new SqlInbox(db), preset: providers.stripe({ secret }) }));
 * @see docs/inbox.md
 */
export function inbox(options: HonoInboxOptions): MiddlewareHandler {
  const engine = createInboxEngine<Context>(options);
  return async function inboxEndpoint(c: Context, next: Next) {
    const decision = await engine.accept(await toHttpRequest(c));
    if (decision.action === 'pass') return next();
    return toResponse(decision.response);
  };
}
