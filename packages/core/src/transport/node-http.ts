/**
 * @module The held response over node:http, shared by the adapters whose framework ends on a
 * `ServerResponse` (Express; NestJS on either platform): the handler's answer is held on the
 * response until the engine has recorded it, then flushed through the layer below. The guard's own
 * answers (a replay, its deadline's 503) go out through the same layer. Framework-free: node:http
 * types and Buffers only.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { PendingRun } from '../http/engine';
import type { HttpResponseRecord } from '../http/types';

type Callback = (error?: Error | null) => void;
type Methods = Pick<ServerResponse, 'writeHead' | 'write' | 'end'>;
/** The one `end` overload the flush uses. */
type EndWithBody = (this: ServerResponse, chunk: Buffer, callback?: () => void) => ServerResponse;

/** How {@link holdResponse} holds one response. */
export interface HoldOptions {
  /** The engine's `maxResponseBytes`: past it (and one byte more) the rest of the answer is not held. */
  readonly maxResponseBytes: number;
  /**
   * The framework's error handling (Express's `next`, Nest's exception filters): called with an
   * answer that cannot go out (over `maxResponseBytes`, the store failed, Node refused its head).
   * Nothing of the held answer was sent: the response it gets has no headers and status 500.
   */
  readonly onError: (error: unknown) => void;
}

/**
 * Per-response state, found by the shared replacement methods below (no closures per request).
 * `below` holds the methods that were in effect on the response when the hold was installed: the
 * layer under it (an earlier middleware's wrappers, else Node's own), which is where the recorded
 * answer goes. Wrappers installed later (compression, on-headers) sit above the hold: they see the
 * handler's calls once, as they would without it, and are never re-entered by the flush.
 */
interface Held {
  /** The claimed run; `undefined` for a response held only to send the guard's answer on it. */
  readonly run: PendingRun | undefined;
  readonly onError: (error: unknown) => void;
  readonly below: Methods;
  readonly chunks: Buffer[];
  /** The most bytes kept: one past `maxResponseBytes`, enough for the record to fail as too large. */
  readonly keep: number;
  /** Bytes kept in `chunks` so far. */
  kept: number;
  /** The callbacks of the handler's `write`/`end` calls, run once the answer is flushed. */
  readonly callbacks: Callback[];
  /** A `writeHead` reached the hold (or the implicit one was sent up the chain). */
  headed: boolean;
  ended: boolean;
  /** The answer went out (or the handler failed): calls are forwarded below as they are. */
  released: boolean;
  /** The guard answered instead of the handler: whatever is written later is acknowledged and dropped. */
  dropped: boolean;
}

const helds = new WeakMap<ServerResponse, Held>();

/** Statuses that carry no body, so no `Content-Length` is added for them (as Node does). */
const bodiless = (status: number): boolean =>
  status === 204 || status === 304 || (status >= 100 && status < 200);

/** A header change after the guard answered: ignored, so that a late reply cannot throw `ERR_HTTP_HEADERS_SENT`. */
function ignoredHeader(this: ServerResponse): ServerResponse {
  return this;
}

/**
 * Adds a chunk of the handler's answer to what is held, up to `keep` bytes: past them the rest is
 * not kept (a copy of the part that fits is), so an answer over `maxResponseBytes` holds no more
 * memory than the limit while it is written, and still fails the record as too large at `end`.
 */
function hold(state: Held, chunk: Buffer): void {
  const room = state.keep - state.kept;
  if (room <= 0 || chunk.length === 0) return;
  const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
  state.chunks.push(part);
  state.kept += part.length;
}

function bytes(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array)
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.alloc(0);
}

/**
 * Sends `record` on a response nothing has been written to yet (the engine's own answers and
 * replays, before any hold), over the headers already set on it.
 */
export function sendRecord(res: ServerResponse, record: HttpResponseRecord): void {
  res.statusCode = record.status;
  for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
  res.end(record.body);
}

/** Drops everything the handler's answer set on the response (status text, headers), for an answer that replaces it. */
function discardAnswer(res: ServerResponse): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusMessage = '';
}

/** Puts `record`'s status and headers on the response in place of the handler's. */
function replaceAnswer(res: ServerResponse, record: HttpResponseRecord): void {
  discardAnswer(res);
  res.statusCode = record.status;
  for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
}

/** True when middleware mounted after the hold wrapped one of the response's methods: its wrappers sit above it. */
function layeredAbove(res: ServerResponse): boolean {
  return res.end !== heldEnd || res.write !== heldWrite || res.writeHead !== heldWriteHead;
}

/**
 * Writes the whole answer through the layer below the hold: head, then body in one `end`. The
 * body is complete, so it gets a `Content-Length` (as Node would give a body passed to `end`)
 * unless the answer framed itself. The callbacks of the handler's `write`/`end` run after it.
 */
function flush(res: ServerResponse, state: Held, body: Buffer): void {
  if (!state.dropped) state.released = true;
  const { below, callbacks } = state;
  const end = below.end as EndWithBody;
  if (
    !res.hasHeader('content-length') &&
    !res.hasHeader('transfer-encoding') &&
    !bodiless(res.statusCode)
  ) {
    res.setHeader('content-length', body.length);
  }
  below.writeHead.call(res, res.statusCode);
  if (callbacks.length === 0) {
    end.call(res, body);
    return;
  }
  const done = callbacks.splice(0);
  end.call(res, body, () => {
    for (const callback of done) callback();
  });
}

/**
 * The answer cannot go out: the response is released to the framework's error handling, cleared of
 * the answer (no header of it, status 500) while nothing was sent. The layers above have ended
 * their answer, which is now discarded: the error handler's answer goes straight to the layer
 * below, without the headers they set for the old one (a `Content-Encoding: gzip` over a plain
 * error body). Never an unhandled rejection.
 */
function fail(res: ServerResponse, state: Held, error: unknown): void {
  state.released = true;
  state.dropped = false;
  if (!res.headersSent) {
    discardAnswer(res);
    res.statusCode = 500;
  }
  if (layeredAbove(res)) Object.assign(res, state.below);
  state.onError(error);
}

// The replacements take their arguments as a rest tuple so that, once released, they forward the
// call below with exactly the arguments it was made with: a wrapper below may read their count
// (`end()` and `end(undefined, cb)` are not the same call to it).
function heldWriteHead(
  this: ServerResponse,
  ...args: [status: number, reason?: unknown, headers?: unknown]
): ServerResponse {
  const state = helds.get(this)!;
  if (state.dropped) return this;
  if (state.released) return state.below.writeHead.apply(this, args as never);
  state.headed = true;
  const [status, reason] = args;
  const headers = typeof reason === 'string' ? args[2] : reason;
  if (typeof reason === 'string') this.statusMessage = reason;
  this.statusCode = status;
  if (Array.isArray(headers))
    for (let i = 0; i + 1 < headers.length; i += 2)
      this.setHeader(String(headers[i]), headers[i + 1]);
  else if (headers)
    for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders))
      if (value !== undefined) this.setHeader(name, value);
  return this;
}

/**
 * What Node's `write`/`end` do first on a response whose head is not written: `writeHead(statusCode)`
 * from the top of the chain, so that `writeHead` wrappers above the hold (on-headers listeners)
 * run before the answer is recorded, as they would without it.
 */
function implicitHead(res: ServerResponse, state: Held): void {
  if (state.headed) return;
  state.headed = true;
  res.writeHead(res.statusCode);
}

function heldWrite(
  this: ServerResponse,
  ...args: [chunk: unknown, encoding?: unknown, callback?: unknown]
): boolean {
  const state = helds.get(this)!;
  const [chunk, encoding, callback] = args;
  if (state.dropped) return acknowledge(encoding, callback);
  if (state.released) return state.below.write.apply(this, args as never);
  if (!state.ended) {
    implicitHead(this, state);
    hold(state, bytes(chunk, encoding));
  }
  const done = typeof encoding === 'function' ? encoding : callback;
  if (typeof done === 'function') state.callbacks.push(done as Callback);
  return true;
}

function heldEnd(
  this: ServerResponse,
  ...args: [chunk?: unknown, encoding?: unknown, callback?: unknown]
): ServerResponse {
  const state = helds.get(this)!;
  const [chunk, encoding, callback] = args;
  if (state.dropped) {
    acknowledge(chunk, encoding, callback);
    return this;
  }
  if (state.released) return state.below.end.apply(this, args as never);
  const done =
    typeof encoding === 'function' ? encoding : typeof chunk === 'function' ? chunk : callback;
  if (typeof done === 'function') state.callbacks.push(done as Callback);
  if (state.ended) return this;
  implicitHead(this, state);
  state.ended = true;
  if (typeof chunk !== 'function' && chunk !== undefined && chunk !== null)
    hold(state, bytes(chunk, encoding));
  const { chunks } = state;
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  // `run` is set on every state that is not dropped (see `answerNow`).
  state.run!.finish({ status: this.statusCode, headers: this.getHeaders(), body }).then(
    (replacement) => {
      try {
        if (replacement) replaceAnswer(this, replacement);
        flush(this, state, replacement ? replacement.body : body);
      } catch (error) {
        // Node refused the head (a status outside 100–999, set without the framework's check):
        // nothing was sent, so the framework's error handling can still answer.
        fail(this, state, error);
      }
    },
    (error: unknown) => fail(this, state, error),
  );
  return this;
}

/** A late write of a run the guard already answered: acknowledged (its callback runs) and dropped. */
function acknowledge(...args: unknown[]): true {
  const callback = args.find((arg) => typeof arg === 'function') as Callback | undefined;
  if (callback) process.nextTick(callback);
  return true;
}

function install(res: ServerResponse, run: PendingRun | undefined, options: HoldOptions): Held {
  const state: Held = {
    run,
    onError: options.onError,
    below: { writeHead: res.writeHead, write: res.write, end: res.end },
    chunks: [],
    keep: options.maxResponseBytes + 1,
    kept: 0,
    callbacks: [],
    headed: false,
    ended: false,
    released: false,
    dropped: false,
  };
  helds.set(res, state);
  res.writeHead = heldWriteHead as ServerResponse['writeHead'];
  res.write = heldWrite as ServerResponse['write'];
  res.end = heldEnd as ServerResponse['end'];
  return state;
}

/**
 * Holds the answer of a claimed run: replaces `writeHead`, `write` and `end` on this response only
 * (which covers Express's `send`, `json`, `sendFile`, piped streams and Fastify's `reply.raw`), so
 * that nothing reaches the socket until `run.finish` has recorded the answer; then the answer (or
 * the engine's replacement) is flushed through the methods it replaced, with a `Content-Length`.
 * At most `maxResponseBytes` + 1 bytes are held: a longer answer fails as too large. When the
 * run's deadline passes first, the guard's answer goes out instead ({@link answerNow}). No
 * prototype is touched: other responses and other apps in the process never run this code.
 * @example
 * holdResponse(res, decision.run, { maxResponseBytes: engine.config.maxResponseBytes, onError: next });
 */
export function holdResponse(res: ServerResponse, run: PendingRun, options: HoldOptions): void {
  install(res, run, options);
  // Without a deadline (not transactional) nothing can answer first: no listener to set up.
  if (run.expires) run.onExpire((answer) => answerNow(res, answer, options.onError));
}

/**
 * Sends the guard's answer now (a replay, one of its own answers, the 503 of its transactional
 * deadline, or of a transaction the store lost) in place of whatever the response holds or has
 * set, and drops whatever is written on it later: the handler's late answer, the framework's own
 * reply. Header changes after that are ignored too, so a late reply cannot throw
 * `ERR_HTTP_HEADERS_SENT` into the framework's error handling. Works on a held response and on
 * one nothing holds; `onError` gets the error when Node refuses the answer. False (nothing done)
 * when the response's answer has already gone out or been handed to the engine.
 */
export function answerNow(
  res: ServerResponse,
  answer: HttpResponseRecord,
  onError: (error: unknown) => void,
): boolean {
  const found = helds.get(res);
  if (found?.released || found?.ended || res.headersSent) return false;
  const state = found ?? install(res, undefined, { maxResponseBytes: 0, onError });
  state.dropped = true;
  try {
    replaceAnswer(res, answer);
    flush(res, state, answer.body);
  } catch (error) {
    fail(res, state, error);
    return true;
  }
  res.setHeader = ignoredHeader as ServerResponse['setHeader'];
  res.removeHeader = ignoredHeader as ServerResponse['removeHeader'];
  res.appendHeader = ignoredHeader as ServerResponse['appendHeader'];
  return true;
}

/**
 * The handler failed with `error` (the framework routed it to its error handling): tells the
 * engine, whose receipt is then `failed`. When the failure was the store's (it lost the
 * transaction under the handler), the guard's 503 goes out at once ({@link answerNow}) and this
 * resolves `true`: do not pass the error on. Otherwise the response is released, so that the
 * framework's error answer goes straight out and is never stored, and this resolves `false`
 * (at once for a response no run holds).
 */
export async function abortHeld(res: ServerResponse, error: unknown): Promise<boolean> {
  const state = helds.get(res);
  if (!state?.run || state.released) return false;
  const lost = await state.run.abort(error);
  if (lost && answerNow(res, lost, state.onError)) return true;
  state.released = true;
  return false;
}
