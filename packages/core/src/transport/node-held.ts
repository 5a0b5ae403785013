/**
 * @module The state of one held response over node:http and the three methods that replace the
 * response's own while it is held. The state is one object on the response itself, under a
 * symbol: no per-request closure, and no WeakMap entry for the garbage collector to trace. The
 * replacement methods are shared by every response and find their state through `this`. The
 * handler's answer is kept as it was written: a single text (what Express's `send` writes) stays
 * a string, neither copied into a Buffer nor decoded back for the receipt, and goes out as it came.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { PendingRun } from '../http/decision';
import { discardAnswer, recordedHead, replaceAnswer } from './node-head';

export type Callback = (error?: Error | null) => void;
type WriteHead = ServerResponse['writeHead'];
type Write = ServerResponse['write'];
type End = ServerResponse['end'];

/** Where a held response keeps its state. */
const kHeld = Symbol('webhook-idempotency.held');

/** A response that may be held: its state under {@link kHeld}. */
type HoldingResponse = ServerResponse & { [kHeld]?: Held };

/**
 * Per-response state, found by the shared replacement methods below. `writeHead`, `write` and
 * `end` are the methods that were in effect on the response when the hold was installed: the
 * layer under it (an earlier middleware's wrappers, else Node's own), which is where the recorded
 * answer goes. Wrappers installed later (compression, on-headers) sit above the hold: they see the
 * handler's calls once, as they would without it, and are never re-entered by the flush.
 */
export class Held {
  /** The first part of the answer kept: a text as written, or bytes. */
  body: Buffer | string | undefined = undefined;
  /** Every part as bytes, once there is more than one. */
  more: Buffer[] | undefined = undefined;
  /** Bytes kept so far. */
  kept = 0;
  /** The callbacks of the handler's `write`/`end` calls, run once the answer is flushed. */
  callbacks: Callback[] | undefined = undefined;
  /** A `writeHead` reached the hold (or the implicit one was sent up the chain). */
  headed = false;
  ended = false;
  /** The answer was passed on (it went out, or the handler failed): calls are forwarded below as they are. */
  passedOn = false;
  /** The guard answered instead of the handler: whatever is written later is acknowledged and dropped. */
  dropped = false;
  readonly writeHead: WriteHead;
  readonly write: Write;
  readonly end: End;

  constructor(
    res: ServerResponse,
    /** The claimed run; `undefined` for a response held only to send the guard's answer on it. */
    readonly run: PendingRun | undefined,
    readonly onError: (error: unknown) => void,
    /** The most bytes kept: one past `maxResponseBytes`, enough for the record to fail as too large. */
    readonly keep: number,
  ) {
    this.writeHead = res.writeHead;
    this.write = res.write;
    this.end = res.end;
  }

  /** The answer held so far, in one piece. */
  answer(): Buffer | string {
    return this.more ? Buffer.concat(this.more) : (this.body ?? EMPTY);
  }

  /** Queues the callback of a `write`/`end` call, to run once the answer is flushed. */
  later(callback: unknown): void {
    if (typeof callback !== 'function') return;
    if (this.callbacks) this.callbacks.push(callback as Callback);
    else this.callbacks = [callback as Callback];
  }
}

const EMPTY = Buffer.alloc(0);

/** Whether a string written with `encoding` goes out as its UTF-8 bytes. */
const isUtf8Name = (encoding: unknown): boolean =>
  typeof encoding !== 'string' || encoding === 'utf8' || encoding === 'utf-8';

function bytes(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array)
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return EMPTY;
}

/**
 * Adds a chunk of the handler's answer to what is held, up to `keep` bytes: past them the rest is
 * not kept (a copy of the part that fits is), so an answer over `maxResponseBytes` holds no more
 * memory than the limit while it is written, and still fails the record as too large at `end`.
 * A first text that fits is kept as the string it is.
 */
function hold(state: Held, chunk: unknown, encoding: unknown): void {
  const room = state.keep - state.kept;
  if (room <= 0) return;
  if (typeof chunk === 'string' && state.body === undefined && isUtf8Name(encoding)) {
    const size = Buffer.byteLength(chunk);
    if (size === 0) return;
    if (size <= room) {
      state.body = chunk;
      state.kept = size;
      return;
    }
  }
  const whole = bytes(chunk, encoding);
  if (whole.length === 0) return;
  const part = whole.length <= room ? whole : Buffer.from(whole.subarray(0, room));
  state.kept += part.length;
  const { body } = state;
  if (body === undefined) state.body = part;
  else if (state.more) state.more.push(part);
  else state.more = [typeof body === 'string' ? Buffer.from(body) : body, part];
}

/** The hold on `res`, if it has one. */
export function heldOf(res: ServerResponse): Held | undefined {
  return (res as HoldingResponse)[kHeld];
}

/** The state of a response whose methods are the hold's (installed together with them). */
function stateOf(res: HoldingResponse): Held {
  const state = res[kHeld];
  if (state) return state;
  throw new Error('webhook-idempotency: a held method was called on a response without its hold');
}

// The replacements take their arguments as a rest tuple so that, once passed on, they forward the
// call below with exactly the arguments it was made with: a wrapper below may read their count
// (`end()` and `end(undefined, cb)` are not the same call to it).
function heldWriteHead(
  this: HoldingResponse,
  ...args: [status: number, reason?: unknown, headers?: unknown]
): ServerResponse {
  const state = stateOf(this);
  if (state.dropped) return this;
  if (state.passedOn) return state.writeHead.apply(this, args as never);
  state.headed = true;
  const [status, reason] = args;
  const headers = typeof reason === 'string' ? args[2] : reason;
  if (typeof reason === 'string') this.statusMessage = reason;
  // A write costs far more than a read on a response whose prototype Express set (see `flush`).
  if (this.statusCode !== status) this.statusCode = status;
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
 * run before the answer is recorded, as they would without it. With none, the call is skipped.
 */
function implicitHead(res: ServerResponse, state: Held): void {
  if (state.headed) return;
  state.headed = true;
  const { writeHead } = res;
  if (writeHead !== heldWriteHead) writeHead.call(res, res.statusCode);
}

function heldWrite(
  this: HoldingResponse,
  ...args: [chunk: unknown, encoding?: unknown, callback?: unknown]
): boolean {
  const state = stateOf(this);
  const [chunk, encoding, callback] = args;
  if (state.dropped) return acknowledge(encoding, callback);
  if (state.passedOn) return state.write.apply(this, args as never);
  if (!state.ended) {
    implicitHead(this, state);
    hold(state, chunk, encoding);
  }
  state.later(typeof encoding === 'function' ? encoding : callback);
  return true;
}

function heldEnd(
  this: HoldingResponse,
  ...args: [chunk?: unknown, encoding?: unknown, callback?: unknown]
): ServerResponse {
  const state = stateOf(this);
  const [chunk, encoding, callback] = args;
  if (state.dropped) {
    acknowledge(chunk, encoding, callback);
    return this;
  }
  if (state.passedOn) return state.end.apply(this, args as never);
  state.later(
    typeof encoding === 'function' ? encoding : typeof chunk === 'function' ? chunk : callback,
  );
  if (state.ended) return this;
  implicitHead(this, state);
  state.ended = true;
  if (typeof chunk !== 'function' && chunk !== undefined && chunk !== null)
    hold(state, chunk, encoding);
  record(this, state);
  return this;
}

/** A late write of a run the guard already answered: acknowledged (its callback runs) and dropped. */
function acknowledge(...args: unknown[]): true {
  const callback = args.find((arg) => typeof arg === 'function') as Callback | undefined;
  if (callback) process.nextTick(callback);
  return true;
}

/** Statuses that carry no body, so no `Content-Length` is added for them (as Node does). */
const bodiless = (status: number): boolean =>
  status === 204 || status === 304 || (status >= 100 && status < 200);

/** The one `end` overload the flush uses. */
type EndWithBody = (
  this: ServerResponse,
  chunk: Buffer | string,
  callback?: () => void,
) => ServerResponse;

/**
 * The whole answer is held: the run records it, then it is flushed under the head it was recorded
 * with (`recordedHead`), or the engine's replacement is flushed instead.
 * Node refusing the head (a status outside 100–999, set without the framework's check) or a
 * failed record goes to the framework's error handling, nothing having been sent.
 */
function record(res: HoldingResponse, state: Held): void {
  const { run } = state;
  if (!run) return;
  const body = state.answer();
  const status = res.statusCode;
  const headers = res.getHeaders();
  run.finish({ status, headers, body }).then(
    (replacement) => {
      try {
        if (replacement) {
          replaceAnswer(res, replacement);
          return flush(res, state, replacement.body);
        }
        recordedHead(res, status, headers);
        flush(res, state, body, status, headers);
      } catch (error) {
        fail(res, state, error);
      }
    },
    (error: unknown) => fail(res, state, error),
  );
}

/**
 * Writes the whole answer through the layer below the hold: head, then body in one `end`. The
 * body is complete, so it gets a `Content-Length` (as Node would give a body passed to `end`)
 * unless the answer framed itself. The callbacks of the handler's `write`/`end` run after it.
 * `status` and `headers` are the response's, read once by the caller: under Express each read of
 * a response's property misses V8's caches, and a write costs over a microsecond more than on a
 * plain node:http response (`bench:express-response`).
 */
export function flush(
  res: ServerResponse,
  state: Held,
  body: Buffer | string,
  status = res.statusCode,
  headers: OutgoingHttpHeaders = res.getHeaders(),
): void {
  if (!state.dropped) state.passedOn = true;
  if (
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    !bodiless(status)
  ) {
    res.setHeader(
      'content-length',
      typeof body === 'string' ? Buffer.byteLength(body) : body.length,
    );
  }
  state.writeHead.call(res, status);
  const end = state.end as EndWithBody;
  const done = state.callbacks;
  if (!done) {
    end.call(res, body);
    return;
  }
  state.callbacks = undefined;
  end.call(res, body, () => {
    for (const callback of done) callback();
  });
}

/**
 * The answer cannot go out: the response is passed on to the framework's error handling, cleared of
 * the answer (no header of it, status 500) while nothing was sent. The layers above have ended
 * their answer, which is now discarded: the error handler's answer goes straight to the layer
 * below, without the headers they set for the old one (a `Content-Encoding: gzip` over a plain
 * error body). Never an unhandled rejection.
 */
export function fail(res: ServerResponse, state: Held, error: unknown): void {
  state.passedOn = true;
  state.dropped = false;
  if (!res.headersSent) {
    discardAnswer(res);
    res.statusCode = 500;
  }
  if (layeredAbove(res)) restoreBelow(res, state);
  state.onError(error);
}

/** True when middleware mounted after the hold wrapped one of the response's methods: its wrappers sit above it. */
function layeredAbove(res: ServerResponse): boolean {
  return res.end !== heldEnd || res.write !== heldWrite || res.writeHead !== heldWriteHead;
}

/** Puts the methods below the hold back on the response (its error handling writes there). */
function restoreBelow(res: ServerResponse, state: Held): void {
  res.writeHead = state.writeHead;
  res.write = state.write;
  res.end = state.end;
}

/**
 * Installs the hold on `res`: its state, and the shared replacement methods on this response only
 * (no prototype is touched).
 */
export function install(
  res: ServerResponse,
  run: PendingRun | undefined,
  onError: (error: unknown) => void,
  maxResponseBytes: number,
): Held {
  const state = new Held(res, run, onError, maxResponseBytes + 1);
  (res as HoldingResponse)[kHeld] = state;
  res.writeHead = heldWriteHead as WriteHead;
  res.write = heldWrite as Write;
  res.end = heldEnd as End;
  return state;
}
