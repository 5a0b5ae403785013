/** @module `idempotent(options)`: the Koa middleware. Translates in, calls the engine, translates out. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { answerNow, createEngine, toRawBody } from '@webhook-idempotency/core/adapter';
import type { Context, Middleware, Next } from 'koa';
import { responseBody, sendRecord } from './body';
import type { KoaIdempotencyOptions } from './types';

/** The neutral request record of a Koa context (the raw bytes from `rawBodyParser()` or koa-bodyparser). */
export function toHttpRequest(ctx: Context): HttpRequest<Context> {
  // rawBodyParser() keeps a Buffer on ctx.request.rawBody, koa-bodyparser the text it parsed.
  const { rawBody: kept, body } = ctx.request as { rawBody?: unknown; body?: unknown };
  const rawBody = toRawBody(kept) ?? (Buffer.isBuffer(body) ? body : undefined);
  return {
    method: ctx.method,
    url: ctx.originalUrl,
    headers: ctx.headers,
    rawBody,
    body,
    native: ctx,
  };
}

/**
 * Answers every retry of a webhook from its receipt: the first delivery runs the rest of the
 * chain, each duplicate gets the stored answer with `Idempotent-Replayed: true`. Use it with
 * `app.use(...)` or on one `@koa/router` route, after a body parser that keeps the raw body
 * (`rawBodyParser()`, or `koa-bodyparser`: both as `ctx.request.rawBody`). Errors are rethrown to Koa.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * router.post('/webhooks/github', rawBodyParser(),
 *   idempotent({ store, provider: 'github', key: (ctx) => ctx.get('x-github-delivery') }),
 *   (ctx) => { ctx.body = { ok: true }; });
 * @see docs/adapters/koa.md
 */
export function idempotent<Tx = unknown>(options: KoaIdempotencyOptions<Tx>): Middleware {
  const engine = createEngine(options);
  return async function idempotency(ctx: Context, next: Next): Promise<void> {
    const decision = await engine.begin(toHttpRequest(ctx));
    if (decision.action === 'pass') return next();
    if (decision.action === 'respond') return sendRecord(ctx, decision.response);
    ctx.state.idempotency = decision.idempotency;
    const { run } = decision;
    let expired = false;
    // The guard gave up on the run (transactional deadline): answer now, straight on the socket,
    // since Koa writes only when the chain returns, and ignore whatever the handler does later.
    if (run.expires)
      run.onExpire((answer) => {
        expired = true;
        ctx.respond = false;
        answerNow(ctx.res, answer, (error) => ctx.app.emit('error', error, ctx));
      });
    let body: Buffer | string;
    try {
      await run.enter(next);
      if (expired) return;
      // The handler wrote to ctx.res itself: Koa's body is not what was sent; only the status is known.
      if (ctx.respond === false || ctx.headerSent) {
        await run.answeredAround(await wireStatus(ctx), 'ctx.respond = false or ctx.res');
        return;
      }
      const read = responseBody(ctx);
      body = typeof read === 'object' && !Buffer.isBuffer(read) ? await read : read;
    } catch (error) {
      if (expired) throw error;
      // The store lost the handler's transaction under it: the guard's 503, not Koa's error answer.
      const lost = await run.abort(error);
      if (!lost) throw error;
      sendRecord(ctx, lost, true);
      return;
    }
    const replacement = await run.finish({
      status: ctx.status,
      headers: ctx.response.headers,
      body,
    });
    if (expired) return;
    if (replacement) sendRecord(ctx, replacement, true);
  };
}

/** The status that went out on `ctx.res` once it finished, or `undefined` when the connection closed first. */
function wireStatus(ctx: Context): Promise<number | undefined> {
  const res = ctx.res;
  if (res.writableFinished) return Promise.resolve(res.statusCode);
  if (res.destroyed) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve(res.writableFinished ? res.statusCode : undefined);
    };
    res.on('finish', done);
    res.on('close', done);
  });
}
