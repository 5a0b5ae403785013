/** @module `inbox(options, fallback)`: the fetch inbox endpoint. Translates in, calls the inbox engine, translates out. */
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import {
  createFallbackInboxEngine,
  readWebRequest,
  resolveMaxRequestBytes,
  toWebResponse,
} from '@webhook-idempotency/core/adapter';

/** Options of {@link inbox}: the inbox options of every adapter, with the `Request` in the callbacks, plus the body limit. */
export interface FetchInboxOptions extends InboxOptions<Request> {
  /**
   * The provider's id for the delivery, from the `Request`: `request.headers.get(name)` as it is
   * works, its `null` for an absent header counting as no id (400 `ERR_IDEMPOTENCY_KEY_MISSING`,
   * nothing stored). Required without `preset`.
   */
  key?: InboxOptions<Request>['key'];
  /** Largest request body read, in bytes: a larger one is answered `413`, nothing stored. Defaults to 1 MiB. */
  maxRequestBytes?: number;
}

/** What answers a request the endpoint hands on unstored (a read, a preset's pass-through, a request without an id with `onMissingKey: 'passthrough'`). */
export type InboxFallback<Args extends unknown[] = unknown[]> = (
  request: Request,
  ...args: Args
) => Response | Promise<Response>;

/**
 * Inbox mode (docs/inbox.md) as a `(request) => Response` handler: verifies the signature, stores
 * the delivery's exact bytes and answers 2xx at once; a worker (`createInboxWorker`) or a queue
 * bridge processes it later, exactly once. A bad signature answers 401 and stores nothing; a store
 * failure 503 so the provider retries; a delivery already stored 2xx again without a second row.
 * A request it hands on goes to `fallback`; without one, a read is answered `405` (and setting
 * `onMissingKey: 'passthrough'` or a pass-through preset needs a fallback).
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * export const POST = inbox({ inbox: new SqlInbox(db), preset: providers.stripe({ secret }) });
 * @see docs/inbox.md
 */
export function inbox<Args extends unknown[] = unknown[]>(
  options: FetchInboxOptions,
  fallback?: InboxFallback<Args>,
): (request: Request, ...args: [...Args, ...unknown[]]) => Promise<Response> {
  const { maxRequestBytes: limit, ...engineOptions } = options ?? {};
  const maxRequestBytes = resolveMaxRequestBytes(limit);
  const engine = createFallbackInboxEngine<Request>(
    engineOptions as InboxOptions<Request>,
    fallback,
  );
  return async function inboxEndpoint(request, ...rest): Promise<Response> {
    const record = await readWebRequest(request, request, maxRequestBytes);
    if (record instanceof Response) return record;
    const decision = await engine.accept(record);
    if (decision.action === 'respond') return toWebResponse(decision.response);
    if (fallback) return fallback(request, ...(rest as unknown as Args));
    return new Response(null, { status: 405, headers: { allow: 'POST' } });
  };
}
