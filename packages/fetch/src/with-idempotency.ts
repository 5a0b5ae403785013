/** @module `withIdempotency(options, handler)`: a fetch handler guarded. Translates in, calls the engine, translates out. */
import { ConfigError } from '@webhook-idempotency/core';
import {
  type CapturedWebResponse,
  captureWebResponse,
  createEngine,
  type PendingRun,
  readWebRequest,
  resolveMaxRequestBytes,
  toWebResponse,
} from '@webhook-idempotency/core/adapter';
import type { FetchHandler, FetchIdempotencyOptions, GuardedHandler } from './types';

/**
 * Guards a `(request) => Response` handler: the first delivery runs it and its 2xx answer is
 * recorded (status, allow-listed headers, body bytes) before it is returned; each duplicate gets
 * the stored answer with `Idempotent-Replayed: true`, a duplicate during the run `409`. The body
 * is read once, from a clone: signatures see the exact bytes and the handler gets the `Request`
 * unread. Errors (the handler's, an answer over `maxResponseBytes`) are rethrown to the server.
 * Works as a Next.js App Router route handler, in `Bun.serve`, `Deno.serve` or any fetch server.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * export const POST = withIdempotency(
 *   { store, preset: providers.stripe({ secret }) },
 *   async (request, idempotency) => Response.json({ received: true, attempts: idempotency?.attempts }),
 * );
 * @see docs/adapters/fetch.md
 */
export function withIdempotency<Args extends unknown[] = unknown[], Tx = unknown>(
  options: FetchIdempotencyOptions<Tx>,
  handler: FetchHandler<Args, Tx>,
): GuardedHandler<Args> {
  const { maxRequestBytes: limit, ...engineOptions } = options;
  const maxRequestBytes = resolveMaxRequestBytes(limit);
  if (typeof handler !== 'function')
    throw new ConfigError('handler', 'withIdempotency(options, handler) needs a function');
  const engine = createEngine<Request, Tx>(engineOptions);
  const { maxResponseBytes } = engine.config;
  return async function idempotency(request, ...rest): Promise<Response> {
    const args = rest as unknown as Args;
    const record = await readWebRequest(request, request, maxRequestBytes);
    if (record instanceof Response) return record;
    const decision = await engine.begin(record);
    if (decision.action === 'pass') return handler(request, undefined, ...args);
    if (decision.action === 'respond') return toWebResponse(decision.response);
    const { run, idempotency } = decision;
    return settle(run, () => handler(request, idempotency, ...args), maxResponseBytes);
  };
}

/** Runs the handler for a claimed delivery and records its answer; the guard's deadline answers first when it passes. */
function settle(
  run: PendingRun,
  call: () => Response | Promise<Response>,
  maxResponseBytes: number,
): Promise<Response> {
  const answered = (async () => {
    let recorded: CapturedWebResponse;
    try {
      const response = await run.enter(call);
      // A handler may be plain JavaScript: a wrong value fails its run loudly.
      if (!(response instanceof Response))
        throw new TypeError(
          `the handler returned ${response === null ? 'null' : typeof response}, not a Response`,
        );
      recorded = await captureWebResponse(response, maxResponseBytes);
    } catch (error) {
      // The store lost the handler's transaction under it: the guard's 503, not the error.
      const lost = await run.abort(error);
      if (lost) return toWebResponse(lost);
      throw error;
    }
    const replacement = await run.finish(recorded.captured);
    return replacement ? toWebResponse(replacement) : recorded.sent;
  })();
  // Without a deadline (not transactional) nothing can answer first: no race to set up.
  if (!run.expires) return answered;
  // The guard gave up on the run (transactional deadline): answer now, drop what the handler returns later.
  const expired = new Promise<Response>((resolve) =>
    run.onExpire((answer) => resolve(toWebResponse(answer))),
  );
  return Promise.race([answered, expired]);
}
