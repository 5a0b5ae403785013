/** @module Types of the adapter conformance suite: the neutral app an adapter builds, and the registry entry. */
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';

/** The part of every framework's request object the suite's callbacks use: Express `req`, Fastify `request`, Koa `ctx`. */
export interface NativeLike {
  readonly headers: IncomingHttpHeaders;
}

/** How the test handler answers, rendered by each adapter in its framework's own way. */
export type Answer =
  | {
      readonly kind: 'json';
      readonly status?: number;
      readonly headers?: Headers;
      readonly value: unknown;
    }
  | {
      readonly kind: 'text';
      readonly status?: number;
      readonly headers?: Headers;
      readonly value: string;
    }
  | {
      readonly kind: 'buffer';
      readonly status?: number;
      readonly headers?: Headers;
      readonly value: Buffer;
    }
  /** `res.write` per chunk, then `res.end` (capability `writeAndEnd`). */
  | {
      readonly kind: 'write-end';
      readonly status?: number;
      readonly headers?: Headers;
      readonly chunks: readonly string[];
    }
  /** A readable stream of the chunks as the body (capability `streamBody`). */
  | {
      readonly kind: 'stream';
      readonly status?: number;
      readonly headers?: Headers;
      readonly chunks: readonly string[];
    }
  /** No body (204). */
  | { readonly kind: 'empty'; readonly status: number; readonly headers?: Headers };

/** Response headers an answer sets. */
export type Headers = Readonly<Record<string, string | readonly string[]>>;

/** What the suite's handler gets from the adapter's route. */
export interface HandlerCall {
  readonly headers: IncomingHttpHeaders;
  /** `req.idempotency`, `request.idempotency` or `ctx.state.idempotency`. */
  readonly idempotency: RequestIdempotency | undefined;
  /** The request's socket, to wait for a client that hung up (capability `socket`). */
  readonly socket: Socket;
}

/** The route handler: resolves with an answer, or rejects (the framework's own error handling answers). */
export type Handler = (call: HandlerCall) => Promise<Answer>;

/** What the app reports of one request to /hook once it is answered, whoever answered it (handler or guard). */
export interface Observed {
  readonly headers: IncomingHttpHeaders;
  /** `req.idempotency`, `request.idempotency` or `ctx.state.idempotency` as the framework's request carries it then, unconverted. */
  readonly idempotency: unknown;
}

/** Receives an {@link Observed} for every request to /hook. */
export type Observer = (observed: Observed) => void;

/** An app the adapter built and started on 127.0.0.1 on a free port. */
export interface RunningApp {
  readonly server: Server;
  close(): Promise<void>;
}

/** What the adapter under test can express; the suite picks cases by these flags, never by name. */
export interface AdapterCapabilities {
  /** Handlers can answer with `res.write` + `res.end`. */
  readonly writeAndEnd: boolean;
  /** Handlers can answer with a stream body. */
  readonly streamBody: boolean;
  /**
   * The handler gets the request's node:net `Socket` (`HandlerCall.socket`): false on a server
   * that hands out none (`Bun.serve`, `Deno.serve`).
   */
  readonly socket: boolean;
  /**
   * The status the platform answers when the handler throws (or its answer fails to be recorded):
   * a framework's error handler says 500, API Gateway and an ALB say 502 for a Lambda function
   * that failed. Defaults to 500.
   */
  readonly errorStatus?: number;
  /**
   * An answer can carry a header more than once (two `Set-Cookie`): false for an ALB target group
   * without multi-value headers, whose result holds one value per name (the last one is sent).
   * Defaults to true.
   */
  readonly repeatedHeaders?: boolean;
}

/** One registry entry: an adapter on one framework major. */
export interface AdapterEntry {
  /** Shown in test names: `'express 5'`. */
  readonly name: string;
  readonly capabilities: AdapterCapabilities;
  /**
   * Which provider presets the presets group sends through this entry: `'every'` (the default),
   * or `'sample'` (presets/index.ts `samplePresets`) for an adapter's further entries (an older
   * framework major, another Lambda event source, another Nest platform), where every other group
   * still runs whole: each preset passes on every adapter, and each family of presets on every entry.
   */
  readonly presets?: 'every' | 'sample';
  /**
   * How the suite's callbacks (`key`, `provider`, `verify`, a `fingerprint` function) read the
   * adapter's native request, for an adapter whose native is not shaped like Node's (a fetch
   * `Request`, a Hono `Context`): the suite wraps them so they get this view instead. Without it
   * they get the native request itself, which must then have Node-style `headers`.
   */
  readonly nativeLike?: (native: never) => NativeLike;
  /**
   * Builds an app with `POST /hook` (and `GET /hook`, for a preset's handshake) guarded by
   * `options` (passed to the adapter as they are),
   * keeping the raw body the adapter's documented way, running `handler` and rendering its
   * answer; listening on 127.0.0.1 on a free port. The app calls `observe` for every request
   * to /hook once it is answered (from a hook outside the guard: a `finish` listener, an
   * `onResponse` hook, an outer middleware).
   */
  start(
    options: IdempotencyOptions<NativeLike>,
    handler: Handler,
    observe: Observer,
  ): Promise<RunningApp>;
}
