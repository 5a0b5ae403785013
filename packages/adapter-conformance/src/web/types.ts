/** @module Types of the HTTP suite on a Web-standard server: the app an adapter builds as a fetch handler, and the runtime that serves it. */
import type { IdempotencyOptions } from '@webhook-idempotency/core';
import type { StoreKind } from '../stores';
import type { AdapterCapabilities, Handler, NativeLike, Observer } from '../types';

/** What `Bun.serve`, `Deno.serve` and every fetch-based server call. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** The adapter options the suite passes: every adapter's, plus the body limit the Web adapters enforce themselves. */
export interface WebOptions extends IdempotencyOptions<NativeLike> {
  /** The Web adapters' `maxRequestBytes`. */
  readonly maxRequestBytes?: number;
}

/** One Web-standard adapter under test (fetch, Hono): `POST /hook` guarded, as a fetch handler. */
export interface WebAppEntry {
  /** Shown in test names: `'fetch'`. */
  readonly name: string;
  readonly capabilities: AdapterCapabilities;
  /** How the suite's callbacks read the adapter's native request (see `AdapterEntry.nativeLike`). */
  readonly nativeLike: (native: never) => NativeLike;
  /**
   * The fetch handler of an app with `POST /hook` guarded by `options` (passed to the adapter as
   * they are), running `handler` and rendering its answer, calling `observe` once each request to
   * /hook is answered. What the handler throws reaches the server, whose own error answer (500)
   * goes out. Throws the adapter's `ConfigError` for invalid options.
   */
  build(options: WebOptions, handler: Handler, observe: Observer): FetchHandler;
}

/** A server a runtime started for one test: listening on 127.0.0.1 at `port`. */
export interface WebServer {
  readonly port: number;
  /** Stops it, closing open connections. */
  close(): Promise<void>;
}

/** A runtime the suite runs in (Bun, Deno): its test registration, its server, its stores. */
export interface WebRuntime {
  /** Registers one test with the runtime's test runner (`test` of `bun:test`, `Deno.test`). */
  test(name: string, run: () => Promise<void>): void;
  /** Serves `fetch` with the runtime's own server (`Bun.serve`, `Deno.serve`) on a free loopback port. */
  serve(fetch: FetchHandler): Promise<WebServer>;
  /** The stores a user of that runtime would use; every case runs on each (`anyStore` cases on the first). */
  readonly stores: readonly StoreKind[];
}
