/**
 * @module `@webhook-idempotency/adapter-conformance/apps/koa`: the Koa registry entries of the
 * adapter conformance suite (Koa 3 and Koa 2 on one @koa/router route with koa-bodyparser, and
 * Koa 3 with rawBodyParser), and the `render`/`listen` helpers the Koa package's own tests build
 * their apps with.
 */
import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { IdempotencyOptions } from '@webhook-idempotency/core';
import { idempotent, rawBodyParser } from '@webhook-idempotency/koa';
import Koa3, { type Context } from 'koa';
import Koa2 from 'koa2';
import bodyParser from 'koa-bodyparser';
import { running } from '../server';
import type { AdapterEntry, Answer, Handler, NativeLike, Observer, RunningApp } from '../types';

/** Renders a neutral answer the Koa way (`ctx.body` of an object, string, Buffer, stream, or none). */
export function render(ctx: Context, answer: Answer): void {
  ctx.status = answer.status ?? 200;
  for (const [name, value] of Object.entries(answer.headers ?? {}))
    ctx.set(name, value as string | string[]);
  switch (answer.kind) {
    case 'json':
    case 'text':
    case 'buffer':
      ctx.body = answer.value;
      return;
    case 'stream':
      ctx.body = Readable.from(answer.chunks);
      return;
    case 'empty':
      return;
    default:
      throw new Error(`koa cannot answer with ${answer.kind}`);
  }
}

/** Starts `app` on a free loopback port. */
export async function listen(app: Koa3): Promise<RunningApp> {
  app.silent = true;
  return running(app.listen(0, '127.0.0.1'));
}

type Parser = () => Koa3.Middleware;

function entry(name: string, Framework: typeof Koa3, parser: Parser = bodyParser): AdapterEntry {
  return {
    name,
    capabilities: { writeAndEnd: false, streamBody: true, socket: true },
    async start(options: IdempotencyOptions<NativeLike>, handler: Handler, observe: Observer) {
      const app = new Framework();
      const router = new Router();
      app.use(async (ctx, next) => {
        try {
          await next();
        } finally {
          observe({ headers: ctx.headers, idempotency: ctx.state.idempotency });
        }
      });
      const route = async (ctx: Context) => {
        render(
          ctx,
          await handler({
            headers: ctx.headers,
            idempotency: ctx.state.idempotency,
            socket: ctx.req.socket,
          }),
        );
      };
      const guarded = idempotent(options);
      // /hook/<operation>: a provider whose operation is the last path segment (Uzum Bank).
      router.post(['/hook', '/hook/:operation'], parser(), guarded, route);
      router.get('/hook', guarded, route);
      app.use(router.routes());
      return listen(app);
    },
  };
}

/** Koa 3 and Koa 2, the majors the peer range declares (Koa 2 with a sample of the presets). */
export const koaApps: readonly AdapterEntry[] = [
  entry('koa 3', Koa3),
  { ...entry('koa 2', Koa2 as unknown as typeof Koa3), presets: 'sample' },
];

/** Koa 3 with the package's own `rawBodyParser()` instead of koa-bodyparser, and a sample of the presets (run by koa.test.ts only). */
export const koaRawBodyApp: AdapterEntry = {
  ...entry('koa 3 + rawBodyParser', Koa3, rawBodyParser),
  presets: 'sample',
};
