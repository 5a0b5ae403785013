/** @module `inbox(options)`: the Hono inbox endpoint. Translates in, calls the inbox engine, translates out. */
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import {
  createInboxEngine,
  readWebRequest,
  resolveMaxRequestBytes,
  toWebResponse,
} from '@webhook-idempotency/core/adapter';
import type { Context, MiddlewareHandler, Next } from 'hono';

/** Options of {@link inbox}: the inbox options of every adapter, with Hono's `Context` in the callbacks, plus the body limit. */
export interface HonoInboxOptions extends InboxOptions<Context> {
  /**
   * Largest request body read, in bytes: a larger one is answered `413` before the signature is
   * checked, nothing stored, whether `Content-Length` announces it or a chunked body grows past it
   * while it is read. Defaults to 1 MiB.
   */
  maxRequestBytes?: number;
}

/**
 * Inbox mode (docs/inbox.md): verifies the signature, stores the delivery's exact bytes and
 * answers 2xx at once; a worker (`createInboxWorker`) or a queue bridge processes it later,
 * exactly once. A bad signature answers 401 and stores nothing; a store failure 503 so the
 * provider retries; a delivery already stored 2xx again without a second row. A request it hands
 * on (a read, `onMissingKey: 'passthrough'`) goes to the next handler. A body over
 * `maxRequestBytes` (default 1 MiB) is answered `413` as soon as the limit is passed.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * app.post('/webhooks/stripe', inbox({ inbox: new SqlInbox(db), preset: providers.stripe({ secret }) }));
 * @see docs/inbox.md
 */
export function inbox(options: HonoInboxOptions): MiddlewareHandler {
  const { maxRequestBytes: limit, ...engineOptions } = options ?? {};
  const maxRequestBytes = resolveMaxRequestBytes(limit);
  const engine = createInboxEngine<Context>(engineOptions as InboxOptions<Context>);
  return async function inboxEndpoint(c: Context, next: Next) {
    const request = await readWebRequest(c.req.raw, c, maxRequestBytes);
    if (request instanceof Response) return request;
    const decision = await engine.accept(request);
    if (decision.action === 'pass') return next();
    return toWebResponse(decision.response);
  };
}
