/**
 * Web-standard adapter: `withIdempotency(options, handler)` guards a `(request: Request) => Response`
 * handler for Next.js route handlers, Bun, Deno and any fetch-based server; `inbox(options)` is
 * the inbox endpoint.
 * @module @webhook-idempotency/fetch
 */
export { withIdempotency } from './with-idempotency';
export { inbox, type FetchInboxOptions, type InboxFallback } from './inbox';
export type { FetchHandler, FetchIdempotencyOptions, GuardedHandler } from './types';
