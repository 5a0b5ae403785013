/** @module `inbox(options)`: the Express inbox endpoint. Translates in, calls the inbox engine, translates out. */
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import { createInboxEngine, sendRecord } from '@webhook-idempotency/core/adapter';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { toHttpRequest } from './middleware';

/** Options of {@link inbox}: the inbox options of every adapter, with Express's `req` in the callbacks. */
export type ExpressInboxOptions = InboxOptions<Request>;

/**
 * Inbox mode (docs/inbox.md): verifies the signature, stores the delivery's exact bytes and
 * answers 2xx at once; a worker (`createInboxWorker`) processes it later, exactly once. A bad
 * signature answers 401 and stores nothing; a store failure answers 503 so the provider retries;
 * a delivery already stored answers 2xx again without storing it twice. Mount it after a parser
 * that keeps the raw bytes (`express.raw()`). Errors go to `next(err)`.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * app.post('/webhooks/stripe', express.raw({ type: '*\/*' }),
 *   inbox({ inbox: new SqlInbox(pool), preset: providers.stripe({ secret }) }));
 * @see docs/inbox.md
 */
export function inbox(options: ExpressInboxOptions): RequestHandler {
  const engine = createInboxEngine(options);
  return function inboxEndpoint(req: Request, res: Response, next: NextFunction): void {
    engine.accept(toHttpRequest(req)).then((decision) => {
      if (decision.action === 'pass') return next();
      // A refused head (the answer already sent by other middleware) goes to Express, not unhandled.
      try {
        sendRecord(res, decision.response);
      } catch (error) {
        next(error);
      }
    }, next);
  };
}
