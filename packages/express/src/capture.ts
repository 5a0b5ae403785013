/** @module Buffers an Express (node:http) response until the engine has recorded it, then flushes it. */
import { ServerResponse, type OutgoingHttpHeaders } from 'node:http';
import type { HttpResponseRecord, PendingRun } from '@webhook-idempotency/core';

type Callback = (error?: Error | null) => void;
type Original = Pick<ServerResponse, 'writeHead' | 'write' | 'end'>;

/**
 * Per-response capture state. The replacement methods are shared module functions that find it
 * here (no closures per request), and stay in place after the flush: once `released` they hand
 * every call to the methods they replaced.
 */
interface Capture {
  readonly run: PendingRun;
  readonly onError: (error: unknown) => void;
  readonly original: Original;
  /** Routed through a patched prototype (see `baseOf`) rather than patched on the response itself. */
  readonly viaBase: boolean;
  readonly chunks: Buffer[];
  readonly callbacks: Callback[];
  ended: boolean;
  released: boolean;
}

const captures = new WeakMap<ServerResponse, Capture>();
type Captured = ServerResponse;

function bytes(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.alloc(0);
}

/** Sends `record` on a response nothing has been written to yet; `replace` drops the headers set so far. */
export function sendRecord(res: ServerResponse, record: HttpResponseRecord, replace = false): void {
  if (replace) for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusCode = record.status;
  for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
  res.end(record.body);
}

function capturedWriteHead(this: Captured, status: number, reason?: unknown, headers?: unknown): ServerResponse {
  const state = captures.get(this)!;
  if (state.released) return state.original.writeHead.apply(this, arguments as never);
  if (typeof reason !== 'string') headers = reason;
  else this.statusMessage = reason;
  this.statusCode = status;
  if (Array.isArray(headers)) for (let i = 0; i + 1 < headers.length; i += 2) this.setHeader(String(headers[i]), headers[i + 1]);
  else if (headers) for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) if (value !== undefined) this.setHeader(name, value);
  return this;
}

function capturedWrite(this: Captured, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
  const state = captures.get(this)!;
  if (state.released) return state.original.write.apply(this, arguments as never);
  if (!state.ended) state.chunks.push(bytes(chunk, encoding));
  const done = typeof encoding === 'function' ? encoding : callback;
  if (typeof done === 'function') state.callbacks.push(done as Callback);
  return true;
}

function capturedEnd(this: Captured, chunk?: unknown, encoding?: unknown, callback?: unknown): ServerResponse {
  const state = captures.get(this)!;
  if (state.released) return state.original.end.apply(this, arguments as never);
  if (state.ended) return this;
  state.ended = true;
  if (typeof chunk === 'function') callback = chunk;
  else if (chunk !== undefined && chunk !== null) state.chunks.push(bytes(chunk, encoding));
  if (typeof encoding === 'function') callback = encoding;
  const { chunks } = state;
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  state.run.finish({ status: this.statusCode, headers: this.getHeaders(), body }).then(
    (replacement) => {
      state.released = true;
      if (replacement) return sendRecord(this, replacement, true);
      const { callbacks } = state;
      if (callbacks.length === 0 && typeof callback !== 'function') return void this.end(body);
      this.end(body, () => {
        for (const done of callbacks) done();
        if (typeof callback === 'function') (callback as Callback)();
      });
    },
    (error: unknown) => {
      state.released = true;
      state.onError(error);
    },
  );
  return this;
}

const METHODS = ['writeHead', 'write', 'end'] as const;
const CAPTURED: Original = {
  writeHead: capturedWriteHead as ServerResponse['writeHead'],
  write: capturedWrite as ServerResponse['write'],
  end: capturedEnd as ServerResponse['end'],
};
const ownsMethods = (target: object): boolean => METHODS.some((name) => Object.prototype.hasOwnProperty.call(target, name));

/** Prototypes whose methods already route through the capture, with the methods they had before. */
const patchedBases = new WeakMap<object, Original>();

/**
 * The prototype to route through the capture for `res`: the last one before
 * `http.ServerResponse.prototype` in its chain (Express's shared `response`, whatever app or
 * mounted sub-app the response is passing through), patched once. `undefined` when another
 * middleware already replaced these methods on the response or on a prototype in between: their
 * replacements would shadow ours, so that response is patched on its own instead.
 */
function baseOf(res: ServerResponse): { base: object; original: Original } | undefined {
  if (ownsMethods(res)) return undefined;
  let base: object | undefined;
  for (let proto = Object.getPrototypeOf(res) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    if (proto === ServerResponse.prototype) break;
    if (ownsMethods(proto) && !patchedBases.has(proto)) return undefined;
    base = proto;
  }
  if (!base) return undefined;
  let original = patchedBases.get(base);
  if (!original) {
    const before: Original = { writeHead: (base as Original).writeHead, write: (base as Original).write, end: (base as Original).end };
    const route = (name: (typeof METHODS)[number]) =>
      function routed(this: ServerResponse, ...args: unknown[]): unknown {
        // Only captures routed through this prototype: a response patched on its own may reach
        // here from its replacements' originals, and must then get the plain method.
        const fn = captures.get(this)?.viaBase ? CAPTURED[name] : before[name];
        return (fn as (...a: unknown[]) => unknown).apply(this, args);
      };
    for (const name of METHODS) Object.defineProperty(base, name, { value: route(name), writable: true, configurable: true });
    patchedBases.set(base, before);
    original = before;
  }
  return { base, original };
}

/**
 * Routes `writeHead`, `write` and `end` of this response (which covers `send`, `json`,
 * `sendFile` and piped streams) through the capture, so that nothing reaches the socket until
 * `run.finish` has recorded the answer; a failure there goes to `onError` (Express's `next`).
 *
 * Replacing methods on the response object itself makes V8's property access on it slower for
 * the rest of the request (about 25 µs of CPU per request, measured): so the replacements go on
 * the shared prototype once, and look up this map to tell captured responses from the others.
 */
export function captureResponse(res: ServerResponse, run: PendingRun, onError: (error: unknown) => void): void {
  const routed = baseOf(res);
  captures.set(res, {
    run,
    onError,
    original: routed ? routed.original : { writeHead: res.writeHead, write: res.write, end: res.end },
    viaBase: routed !== undefined,
    chunks: [],
    callbacks: [],
    ended: false,
    released: false,
  });
  if (!routed) Object.assign(res, CAPTURED);
}

/**
 * Tells the engine that the handler failed with `error` (Express routed it to the error
 * handlers), then lets the rest of the answer through uncaptured. Resolves once the receipt is
 * marked `failed`; resolves at once for a response that is not being captured.
 */
export async function abortCapture(res: ServerResponse, error: unknown): Promise<void> {
  const state = captures.get(res);
  if (!state || state.released) return;
  await state.run.abort(error);
  state.released = true;
}
