/** @module `inbox(options)`: the Koa inbox endpoint. Translates in, calls the inbox engine, translates out. */
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import type { Context, Middleware, Next } from 'koa';
import { sendRecord } from './body';
import { toHttpRequest } from './middleware';

/** Options of {@link inbox}: the inbox options of every adapter, with Koa's `ctx` in the callbacks. */
export type KoaInboxOptions = InboxOptions<Context>;

/**
 * Inbox mode (docs/inbox.md): verifies the signature, stores the delivery's exact bytes and
 * answers 2xx at once; `createInboxWorker` processes it later, exactly once. 401 for a bad
 * signature (nothing stored), 503 when the store is down, 2xx again for a duplicate (stored once).
 * Mount it after `rawBodyParser()`. Requests it does not store (reads, `onMissingKey:
 * 'passthrough'`) go on to `next()`; errors are rethrown to Koa.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * router.post('/webhooks/stripe', rawBodyParser(),
 *   inbox({ inbox: new SqlInbox(pool), preset: providers.stripe({ secret }) }));
 * @see docs/inbox.md
 */
export function inbox(options: KoaInboxOptions): Middleware {
  const engine = createInboxEngine(options);
  return async function inboxEndpoint(ctx: Context, next: Next): Promise<void> {
    const decision = await engine.accept(toHttpRequest(ctx));
    if (decision.action === 'pass') return next();
    sendRecord(ctx, decision.response);
  };
}
