/**
 * @module `@webhook-idempotency/adapter-conformance/apps/hono`: the Hono registry entry of the
 * adapter conformance suite (one route on Hono, served by @hono/node-server), and the `AppEnv`,
 * `render` and `listen` the Hono package's own tests and the inbox table build their apps with.
 */
import type { IncomingHttpHeaders, Server } from 'node:http';
import { Readable } from 'node:stream';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import {
  idempotent,
  type HonoIdempotencyOptions,
  type IdempotencyVariables,
} from '@webhook-idempotency/hono';
import { type Context, Hono } from 'hono';
import { running } from '../server';
import type { AdapterEntry, Answer, NativeLike, RunningApp } from '../types';

/** Node-style lower-cased headers of a fetch `Headers`. */
export const nodeHeaders = (headers: Headers): IncomingHttpHeaders => Object.fromEntries(headers);

/** The app's env: Node's request and response as bindings, the guard's variable. */
export type AppEnv = { Bindings: HttpBindings; Variables: IdempotencyVariables };

/** Renders a neutral answer the Hono way (`c.json`, `c.body` of a string, bytes, stream, or none). */
export function render(c: Context, answer: Answer): Response {
  const status = (answer.status ?? 200) as 200;
  for (const [name, value] of Object.entries(answer.headers ?? {}))
    for (const item of typeof value === 'string' ? [value] : value)
      c.header(name, item, { append: true });
  switch (answer.kind) {
    case 'json':
      return c.json(answer.value, status);
    case 'text':
      return c.body(answer.value, status);
    case 'buffer':
      return c.body(new Uint8Array(answer.value), status);
    case 'stream':
      return c.body(
        Readable.toWeb(Readable.from(answer.chunks.map((c) => Buffer.from(c)))) as ReadableStream,
        status,
      );
    case 'empty':
      return c.body(null, status);
    default:
      throw new Error(`hono cannot answer with ${answer.kind}`);
  }
}

/** Serves `app` with @hono/node-server on a free loopback port. */
export function listen(app: Hono<AppEnv>): Promise<RunningApp> {
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  return running(server.listen(0, '127.0.0.1'));
}

/** `idempotent()` on `app.post('/hook', …)`, the raw body read by the middleware itself. */
export const honoApp: AdapterEntry = {
  name: 'hono 4 (@hono/node-server)',
  capabilities: { writeAndEnd: false, streamBody: true, socket: true },
  nativeLike: (c: Context): NativeLike => ({ headers: nodeHeaders(c.req.raw.headers) }),
  async start(options, handler, observe) {
    const app = new Hono<AppEnv>();
    app.onError((_error, c) => c.text('Internal Server Error', 500)); // Hono's default, without its log line
    app.use(async (c, next) => {
      try {
        await next();
      } finally {
        observe({ headers: c.env.incoming.headers, idempotency: c.get('idempotency') });
      }
    });
    // /hook/<operation>: a provider whose operation is the last path segment (Uzum Bank).
    for (const path of ['/hook', '/hook/:operation'])
      app.on(
        ['POST', 'GET'],
        path,
        idempotent(options as unknown as HonoIdempotencyOptions),
        async (c) =>
          render(
            c,
            await handler({
              headers: nodeHeaders(c.req.raw.headers),
              idempotency: c.get('idempotency'),
              socket: c.env.incoming.socket,
            }),
          ),
      );
    return listen(app);
  },
};
