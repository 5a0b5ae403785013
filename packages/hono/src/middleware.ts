/** @module `idempotent(options)`: the Hono middleware. Translates in, calls the engine, translates out. */
import {
  type CapturedWebResponse,
  captureWebResponse,
  createEngine,
  readWebRequest,
  resolveMaxRequestBytes,
  toWebResponse,
} from '@webhook-idempotency/core/adapter';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { HonoIdempotencyOptions, IdempotencyEnv } from './types';

/**
 * Answers every retry of a webhook from its receipt: the first delivery runs the handler and its
 * 2xx answer is recorded before Hono sends it, each duplicate gets the stored answer with
 * `Idempotent-Replayed: true`. Use it on one route or with `app.use(...)`. It reads the request
 * bytes itself, from a clone, at most `maxRequestBytes` of them (default 1 MiB; past them `413`):
 * the handler still reads `c.req.json()` or `c.req.raw`. Errors, the
 * handler's and its own, go to Hono's error handling (`app.onError`).
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * app.post('/webhooks/stripe', idempotent({ store, preset: providers.stripe({ secret }) }),
 *   (c) => c.json({ received: true, attempts: c.get('idempotency')?.attempts }));
 * @see docs/adapters/hono.md
 */
export function idempotent<Tx = unknown>(
  options: HonoIdempotencyOptions<Tx>,
): MiddlewareHandler<IdempotencyEnv<Tx>> {
  const { maxRequestBytes: limit, ...engineOptions } = options;
  const maxRequestBytes = resolveMaxRequestBytes(limit);
  const engine = createEngine<Context, Tx>(engineOptions);
  const { maxResponseBytes } = engine.config;
  return async function idempotency(c: Context<IdempotencyEnv<Tx>>, next: Next) {
    const request = await readWebRequest<Context>(c.req.raw, c, maxRequestBytes);
    if (request instanceof Response) return request;
    const decision = await engine.begin(request);
    if (decision.action === 'pass') return next();
    if (decision.action === 'respond') return toWebResponse(decision.response);
    const { run } = decision;
    c.set('idempotency', decision.idempotency);
    // The guard gave up on the run (transactional deadline): answer now; Hono drops the late answer.
    // Without a deadline (not transactional) there is nothing to race against.
    let gaveUp = false;
    const expired = run.expires
      ? new Promise<true>((resolve) =>
          run.onExpire((answer) => {
            gaveUp = true;
            replace(c, toWebResponse(answer));
            resolve(true);
          }),
        )
      : undefined;
    let recorded: CapturedWebResponse;
    try {
      const entered = run.enter(next);
      if ((await (expired ? Promise.race([entered, expired]) : entered)) === true) return;
      if (c.error) throw c.error; // the handler threw; Hono's onError has answered
      recorded = await captureWebResponse(c.res, maxResponseBytes);
    } catch (error) {
      // The store lost the handler's transaction under it: the guard's 503 replaces the error answer.
      const lost = await run.abort(error);
      if (lost) return replace(c, toWebResponse(lost));
      if (error === c.error) return;
      throw error;
    }
    const replacement = await run.finish(recorded.captured);
    // The deadline passed while the answer was read: the guard's 503 stands, never the late 2xx.
    if (gaveUp) return;
    replace(c, replacement ? toWebResponse(replacement) : recorded.sent);
  };
}

/** Sets `c.res` to `response` alone: Hono would otherwise merge the previous answer's headers in. */
function replace(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}
