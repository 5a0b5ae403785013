/** @module Buffers an Express (node:http) response until the engine has recorded it, then flushes it through the layer below. */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import type { PendingRun } from '@webhook-idempotency/core/adapter';

type Callback = (error?: Error | null) => void;
type Methods = Pick<ServerResponse, 'writeHead' | 'write' | 'end'>;
/** The one `end` overload the flush uses. */
type EndWithBody = (this: ServerResponse, chunk: Buffer, callback?: () => void) => ServerResponse;

/**
 * Per-response capture state, found by the shared replacement methods below (no closures per
 * request). `below` holds the methods that were in effect on the response when the capture was
 * installed: the layer under it (an earlier middleware's wrappers, else Node's own), which is
 * where the recorded answer goes. Wrappers installed later (compression, on-headers) sit above
 * the capture: they see the handler's calls once, as they would without it, and are never
 * re-entered by the flush.
 */
interface Capture {
  readonly run: PendingRun;
  readonly onError: (error: unknown) => void;
  readonly below: Methods;
  readonly chunks: Buffer[];
  /** The most bytes kept: one past `maxResponseBytes`, enough for the record to fail as too large. */
  readonly keep: number;
  /** Bytes kept in `chunks` so far. */
  kept: number;
  readonly callbacks: Callback[];
  /** A `writeHead` reached the capture (or the implicit one was sent up the chain). */
  headed: boolean;
  ended: boolean;
  released: boolean;
  /** The guard gave up on the run (its deadline) and answered: whatever the handler writes later is dropped. */
  dropped: boolean;
}

const captures = new WeakMap<ServerResponse, Capture>();

/** Statuses that carry no body, so no `Content-Length` is added for them (as Node does). */
const bodiless = (status: number): boolean =>
  status === 204 || status === 304 || (status >= 100 && status < 200);

/**
 * Adds a chunk of the handler's answer to what is held, up to `keep` bytes: past them the rest is
 * not kept (a copy of the part that fits is), so an answer over `maxResponseBytes` holds no more
 * memory than the limit while it is written, and still fails the record as too large at `end`.
 */
function hold(state: Capture, chunk: Buffer): void {
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

/** Sends `record` on a response nothing has been written to yet (the engine's own answers and replays, before any capture). */
export function sendRecord(res: ServerResponse, record: HttpResponseRecord): void {
  res.statusCode = record.status;
  for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
  res.end(record.body);
}

/**
 * Writes the whole answer through the layer below the capture: head, then body in one `end`.
 * The body is complete, so it gets a `Content-Length` (as Node would give a body passed to
 * `end`) unless the answer framed itself. Callbacks of the handler's `write`/`end` run after it.
 */
function flushBelow(res: ServerResponse, state: Capture, body: Buffer, callback: unknown): void {
  state.released = true;
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
  if (callbacks.length === 0 && typeof callback !== 'function') {
    end.call(res, body);
    return;
  }
  end.call(res, body, () => {
    for (const done of callbacks) done();
    if (typeof callback === 'function') (callback as Callback)();
  });
}

/** Drops everything the handler's answer set on the response (status text, headers), for an answer that replaces it. */
function discardAnswer(res: ServerResponse): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusMessage = '';
}

/** True when middleware mounted after the guard wrapped one of the response's methods: its wrappers sit above the capture. */
function layeredAbove(res: ServerResponse): boolean {
  return (
    res.end !== capturedEnd || res.write !== capturedWrite || res.writeHead !== capturedWriteHead
  );
}

// The replacements take their arguments as a rest tuple so that, once released, they forward the
// call below with exactly the arguments it was made with: a wrapper below may read their count
// (`end()` and `end(undefined, cb)` are not the same call to it).
function capturedWriteHead(
  this: ServerResponse,
  ...args: [status: number, reason?: unknown, headers?: unknown]
): ServerResponse {
  const state = captures.get(this)!;
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
 * from the top of the chain, so that `writeHead` wrappers above the capture (on-headers
 * listeners) run before the answer is recorded, as they would without the capture.
 */
function implicitHead(res: ServerResponse, state: Capture): void {
  if (state.headed) return;
  state.headed = true;
  res.writeHead(res.statusCode);
}

function capturedWrite(
  this: ServerResponse,
  ...args: [chunk: unknown, encoding?: unknown, callback?: unknown]
): boolean {
  const state = captures.get(this)!;
  const [chunk, encoding, callback] = args;
  if (state.dropped) return dropped(encoding, callback);
  if (state.released) return state.below.write.apply(this, args as never);
  if (!state.ended) {
    implicitHead(this, state);
    hold(state, bytes(chunk, encoding));
  }
  const done = typeof encoding === 'function' ? encoding : callback;
  if (typeof done === 'function') state.callbacks.push(done as Callback);
  return true;
}

function capturedEnd(
  this: ServerResponse,
  ...args: [chunk?: unknown, encoding?: unknown, callback?: unknown]
): ServerResponse {
  const state = captures.get(this)!;
  const [chunk, encoding] = args;
  let callback = args[2];
  if (state.dropped) {
    dropped(chunk, encoding, callback);
    return this;
  }
  if (state.released) return state.below.end.apply(this, args as never);
  if (state.ended) return this;
  implicitHead(this, state);
  state.ended = true;
  if (typeof chunk === 'function') callback = chunk;
  else if (chunk !== undefined && chunk !== null) hold(state, bytes(chunk, encoding));
  if (typeof encoding === 'function') callback = encoding;
  const { chunks } = state;
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  state.run.finish({ status: this.statusCode, headers: this.getHeaders(), body }).then(
    (replacement) => {
      try {
        if (!replacement) return flushBelow(this, state, body, callback);
        discardAnswer(this);
        this.statusCode = replacement.status;
        for (const [name, value] of Object.entries(replacement.headers))
          this.setHeader(name, value);
        flushBelow(this, state, replacement.body, callback);
      } catch (error) {
        // Node refused the head (a status outside 100–999, set without Express's check): nothing
        // was sent, so the framework's error handling can still answer. Never an unhandled rejection.
        state.onError(error);
      }
    },
    (error: unknown) => {
      state.released = true;
      // The layers above have ended their answer, which is now discarded: the error handler's
      // answer goes straight to the layer below, without the headers they set for the old one
      // (a `Content-Encoding: gzip` over a plain error body).
      if (layeredAbove(this)) {
        discardAnswer(this);
        Object.assign(this, state.below);
      }
      state.onError(error);
    },
  );
  return this;
}

/** A late write of a run the guard already answered: acknowledged (its callback runs) and dropped. */
function dropped(...args: unknown[]): true {
  const callback = args.find((arg) => typeof arg === 'function') as Callback | undefined;
  if (callback) process.nextTick(callback);
  return true;
}

/**
 * The guard gave up on the run before the handler answered (the transactional deadline): send
 * its answer (503 with `Retry-After`) through the layer below now, and drop what the handler
 * writes later instead of letting it reach a finished response.
 */
function expire(res: ServerResponse, answer: HttpResponseRecord): void {
  const state = captures.get(res);
  if (!state || state.released || state.ended || res.headersSent) return;
  state.dropped = true;
  discardAnswer(res);
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  try {
    flushBelow(res, { ...state, callbacks: [] }, answer.body, undefined);
  } catch (error) {
    state.onError(error);
  }
}

/**
 * Replaces `writeHead`, `write` and `end` on this response only (which covers `send`, `json`,
 * `sendFile` and piped streams), so that nothing reaches the socket until `run.finish` has
 * recorded the answer; a failure there goes to `onError` (Express's `next`). At most
 * `maxResponseBytes` + 1 bytes of the answer are held: a longer one fails as too large. The methods they
 * replace are kept and the answer is flushed through them. No prototype is touched: other
 * responses and other apps in the process never run this code.
 */
export function captureResponse(
  res: ServerResponse,
  run: PendingRun,
  options: { readonly maxResponseBytes: number; readonly onError: (error: unknown) => void },
): void {
  const { maxResponseBytes, onError } = options;
  captures.set(res, {
    run,
    onError,
    below: { writeHead: res.writeHead, write: res.write, end: res.end },
    chunks: [],
    keep: maxResponseBytes + 1,
    kept: 0,
    callbacks: [],
    headed: false,
    ended: false,
    released: false,
    dropped: false,
  });
  run.onExpire((answer) => expire(res, answer));
  res.writeHead = capturedWriteHead as ServerResponse['writeHead'];
  res.write = capturedWrite as ServerResponse['write'];
  res.end = capturedEnd as ServerResponse['end'];
}

/**
 * Tells the engine that the handler failed with `error` (Express routed it to the error
 * handlers), then lets the rest of the answer through uncaptured. Resolves once the receipt is
 * marked `failed` (at once for a response that is not being captured), with the guard's answer to
 * send instead of passing the error on when the failure was the store's (else `null`).
 */
export async function abortCapture(
  res: ServerResponse,
  error: unknown,
): Promise<HttpResponseRecord | null> {
  const state = captures.get(res);
  if (!state || state.released) return null;
  const replacement = await state.run.abort(error);
  state.released = true;
  return replacement;
}
