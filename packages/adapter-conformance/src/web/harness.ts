/**
 * @module One test's world on a Web-standard server: the {@link Harness} every case gets, with the
 * app served by the runtime under test (`Bun.serve`, `Deno.serve`) and requests sent with its
 * `fetch` over HTTP, on a fresh store and guard.
 */
import type { Store } from '@webhook-idempotency/core';
import type request from 'supertest';
import { BODY, type CaseHandler, type Harness, harnessWorld, jsonAnswer } from '../harness';
import type { RunningApp } from '../types';
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
  const { parts, appOf } = harnessWorld(store, entry);
  let server: WebServer | undefined;

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
    ...parts,
    async start(options = {}, handler = jsonAnswer) {
      const fetchHandler = entry.build(...appOf(options, handler));
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
    get(query, headers = {}) {
      return fetch(url(`/hook?${query}`), { headers }).then(answer) as unknown as request.Test;
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
    port() {
      if (!server) throw new Error('start() the app first');
      return server.port;
    },
  };
}
