/**
 * @module One test's world on a Web-standard server: the {@link Harness} every case gets, with the
 * app served by the runtime under test (`Bun.serve`, `Deno.serve`) and requests sent with its
 * `fetch` over HTTP, on a fresh store and guard.
 */
import { mergeOptions } from '@webhook-idempotency/core/adapter';
import {
  IdempotencyGuard,
  type GuardEvent,
  type IdempotencyOptions,
  type Store,
} from '@webhook-idempotency/core';
import type request from 'supertest';
import {
  BODY,
  type CaseHandler,
  type Harness,
  jsonAnswer,
  PROVIDER,
  viewedThrough,
} from '../harness';
import type { NativeLike, Observed, RunningApp } from '../types';
import type { WebAppEntry, WebOptions, WebRuntime, WebServer } from './types';

/** What {@link WebHarness.post} resolves with: supertest's shape, which the cases read. */
export interface WebResponse {
  readonly status: number;
  /** Lower-cased names; each `Set-Cookie` in an array, every other header as one string. */
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

/** The harness of the Web-standard cases: the shared one, plus the Web adapters' body limit and a streamed body. */
export interface WebHarness extends Harness {
  start(options?: Partial<WebOptions>, handler?: CaseHandler): Promise<RunningApp>;
  /** POSTs `chunks` to /hook as a stream (chunked, no `Content-Length`), with `X-Event-Id: id`. */
  postChunks(id: string, chunks: readonly string[]): Promise<WebResponse>;
}

/** Supertest's header object from a fetch `Headers`. */
function headerObject(headers: Headers): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = {};
  for (const [name, value] of headers) if (name !== 'set-cookie') object[name] = value;
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) object['set-cookie'] = cookies;
  return object;
}

/** Builds a harness on `store` for `entry`, served by `runtime`; `cleanup` collects what to close after the test. */
export function createWebHarness(
  entry: WebAppEntry,
  runtime: Pick<WebRuntime, 'serve'>,
  store: Store<unknown>,
  cleanup: Array<() => Promise<void>>,
): WebHarness {
  const seen: GuardEvent[] = [];
  const waiters: Array<() => void> = [];
  const guard = new IdempotencyGuard(store, {
    onEvent(event) {
      seen.push(event);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  let count = 0;
  let server: WebServer | undefined;
  const reports: Observed[] = [];
  const reportWaiters: Array<() => void> = [];

  const url = (path = '/hook') => {
    if (!server) throw new Error('start() the app first');
    return `http://127.0.0.1:${server.port}${path}`;
  };
  const answer = async (res: Response): Promise<WebResponse> => ({
    status: res.status,
    headers: headerObject(res.headers),
    body: Buffer.from(await res.arrayBuffer()),
  });
  const send = async (
    body: string | ReadableStream<Uint8Array>,
    headers: Record<string, string>,
    path?: string,
  ): Promise<WebResponse> =>
    answer(
      await fetch(url(path), {
        method: 'POST',
        headers,
        body,
        ...(typeof body === 'string' ? {} : { duplex: 'half' }),
      } as RequestInit),
    );

  return {
    store,
    guard,
    capabilities: entry.capabilities,
    calls: () => count,
    claims: () => seen.filter((event) => event.type === 'claimed').length,
    async start(options = {}, handler = jsonAnswer) {
      const defaults: IdempotencyOptions<NativeLike> = {
        guard,
        provider: PROVIDER,
        key: (native) => native.headers['x-event-id'] as string | undefined,
        keyDescription: 'X-Event-Id header',
      };
      const observe = (observed: Observed) => {
        reports.push(observed);
        for (const wake of reportWaiters.splice(0)) wake();
      };
      const fetchHandler = entry.build(
        viewedThrough(mergeOptions(defaults, options), entry.nativeLike),
        async (call) => handler(call, ++count),
        observe,
      );
      const started = await runtime.serve(fetchHandler);
      server = started;
      cleanup.push(() => started.close());
      // The shared cases that read `server` need a node:http server (capability `socket`).
      return {
        get server(): never {
          throw new Error('a Web-standard server is no node:http Server');
        },
        close: () => started.close(),
      };
    },
    post(id, body = BODY, headers = {}, path = '/hook') {
      const all: Record<string, string> = { 'content-type': 'application/json', ...headers };
      if (id !== undefined) all['x-event-id'] = id;
      // The cases await it or call `.then`, as they do supertest's request.
      return send(body, all, path) as unknown as request.Test;
    },
    get(query) {
      return fetch(url(`/hook?${query}`)).then(answer) as unknown as request.Test;
    },
    postChunks(id, chunks) {
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
          controller.close();
        },
      });
      return send(stream, { 'content-type': 'application/json', 'x-event-id': id });
    },
    receipt: (id) => guard.find({ provider: PROVIDER, externalId: id }),
    observed(wanted) {
      return new Promise((resolve) => {
        const check = () => {
          if (reports.length >= wanted) resolve([...reports]);
          else reportWaiters.push(check);
        };
        check();
      });
    },
    events(type, wanted = 1) {
      return new Promise((resolve) => {
        const check = () => {
          if (seen.filter((event) => event.type === type).length >= wanted) resolve();
          else waiters.push(check);
        };
        check();
      });
    },
    port() {
      if (!server) throw new Error('start() the app first');
      return server.port;
    },
  };
}
