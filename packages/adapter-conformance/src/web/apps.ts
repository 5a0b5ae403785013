/**
 * @module The Web-standard adapters as the suite builds them for a runtime's own server: the fetch
 * adapter's `withIdempotency` as the whole fetch handler, and Hono's `idempotent()` on
 * `app.post('/hook')` behind `app.fetch`. Answers are rendered by the same functions as on
 * node:http (apps/fetch, apps/hono).
 */
import type { RequestIdempotency } from '@webhook-idempotency/core';
import { type FetchIdempotencyOptions, withIdempotency } from '@webhook-idempotency/fetch';
import {
  type HonoIdempotencyOptions,
  type IdempotencyVariables,
  idempotent,
} from '@webhook-idempotency/hono';
import { type Context, Hono } from 'hono';
import { nodeHeaders, render } from '../apps/fetch';
import { render as renderHono } from '../apps/hono';
import type { HandlerCall, NativeLike } from '../types';
import type { WebAppEntry } from './types';

/** A runtime's own server hands the handler no node:net socket: the cases that need one are left out (capability `socket`). */
function callOf(headers: Headers, idempotency: RequestIdempotency | undefined): HandlerCall {
  return {
    headers: nodeHeaders(headers),
    idempotency,
    get socket(): never {
      throw new Error('a Web-standard server hands the handler no node:net socket');
    },
  };
}

const capabilities = { writeAndEnd: false, streamBody: true, socket: false };

/** `withIdempotency(options, handler)` is the server's fetch handler; what it throws, the server answers. */
export const fetchWebApp: WebAppEntry = {
  name: 'fetch',
  capabilities,
  nativeLike: (request: Request): NativeLike => ({ headers: nodeHeaders(request.headers) }),
  build(options, handler, observe) {
    const guarded = withIdempotency(
      options as unknown as FetchIdempotencyOptions,
      async (request, idempotency, seen: { value: unknown }) => {
        seen.value = idempotency;
        return render(await handler(callOf(request.headers, idempotency)));
      },
    );
    return async function hook(request) {
      const seen: { value: unknown } = { value: undefined };
      try {
        return await guarded(request, seen);
      } finally {
        observe({ headers: nodeHeaders(request.headers), idempotency: seen.value });
      }
    };
  },
};

/** `idempotent()` on `app.on(['POST', 'GET'], '/hook', …)`; the server calls `app.fetch`. */
export const honoWebApp: WebAppEntry = {
  name: 'hono',
  capabilities,
  nativeLike: (c: Context): NativeLike => ({ headers: nodeHeaders(c.req.raw.headers) }),
  build(options, handler, observe) {
    const app = new Hono<{ Variables: IdempotencyVariables }>();
    app.onError((_error, c) => c.text('Internal Server Error', 500)); // Hono's default, without its log line
    app.use(async (c, next) => {
      try {
        await next();
      } finally {
        observe({ headers: nodeHeaders(c.req.raw.headers), idempotency: c.get('idempotency') });
      }
    });
    // GET too: a preset's handshake sent as a read (Meta's hub.challenge) goes through the adapter.
    app.on(
      ['POST', 'GET'],
      ['/hook', '/hook/:operation'],
      idempotent(options as unknown as HonoIdempotencyOptions),
      async (c) => renderHono(c, await handler(callOf(c.req.raw.headers, c.get('idempotency')))),
    );
    return async (request) => app.fetch(request);
  },
};

/** The Web-standard adapters, in the order their tests are registered. */
export const webApps: readonly WebAppEntry[] = [fetchWebApp, honoWebApp];
