/**
 * @module Holds what Nest writes on the node:http response of a claimed run (both platforms end
 * there: Express's `res`, Fastify's `reply.raw`) until the engine has recorded it, then flushes it.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import type { PendingRun } from '@webhook-idempotency/core/adapter';

type Methods = Pick<ServerResponse, 'writeHead' | 'write' | 'end'>;
type Callback = () => void;
type CapturedResponse = Parameters<PendingRun['finish']>[0];

/** Decides what goes out once the whole answer is held: `null` sends it, a record replaces it; a rejection is handed to `fail`. */
export type Settle = (captured: CapturedResponse) => Promise<HttpResponseRecord | null>;

const bodiless = (status: number): boolean =>
  status === 204 || status === 304 || (status >= 100 && status < 200);

function bytes(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array)
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.alloc(0);
}

/** Replaces the head and body of a response nothing has been sent on. */
function replaceWith(res: ServerResponse, record: HttpResponseRecord): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusCode = record.status;
  for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
}

/**
 * The held response of one claimed run. Own `writeHead`/`write`/`end` on this response only (no
 * prototype is touched); `release` puts Node's methods back. Nothing reaches the socket before
 * `settle` has resolved.
 */
export class HeldResponse {
  private readonly below: Methods;
  private readonly chunks: Buffer[] = [];
  private readonly callbacks: Callback[] = [];
  /** Bytes held in `chunks`: at most `maxResponseBytes` + 1, enough for the record to fail as too large. */
  private kept = 0;
  private ended = false;
  private released = false;
  /** The guard answered already (a replay, its own answer, its deadline): later writes are acknowledged and dropped. */
  private dropped = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly settle: Settle,
    private readonly fail: (error: unknown) => void,
    /** The engine's `maxResponseBytes`: past it, the rest of the answer is not held. */
    private readonly maxResponseBytes = Number.POSITIVE_INFINITY,
  ) {
    this.below = { writeHead: res.writeHead, write: res.write, end: res.end };
    const held = this;
    res.writeHead = function heldWriteHead(status: number, ...rest: unknown[]) {
      return held.writeHead(status, rest);
    } as ServerResponse['writeHead'];
    res.write = function heldWrite(chunk: unknown, encoding?: unknown, callback?: unknown) {
      return held.write(chunk, encoding, callback);
    } as ServerResponse['write'];
    res.end = function heldEnd(chunk?: unknown, encoding?: unknown, callback?: unknown) {
      held.end(chunk, encoding, callback);
      return res;
    } as ServerResponse['end'];
  }

  /** Puts Node's methods back: what is written from now on goes straight out (an exception filter's answer). */
  release(): void {
    if (this.released) return;
    this.released = true;
    Object.assign(this.res, this.below);
  }

  /**
   * Sends the guard's answer now (a replay, one of its own answers, or the 503 of its
   * transactional deadline) and drops whatever is written on this response later: Nest's own
   * reply, or a method that answers with `@Res()`. Header changes after that are ignored too, so
   * a late reply cannot throw `ERR_HTTP_HEADERS_SENT` into Nest's exception handling.
   */
  answerNow(answer: HttpResponseRecord): void {
    if (this.released || this.ended || this.res.headersSent) return;
    this.dropped = true;
    replaceWith(this.res, answer);
    this.flush(answer.body);
    const res = this.res;
    const ignored = () => res;
    Object.assign(res, { setHeader: ignored, removeHeader: ignored, appendHeader: ignored });
  }

  private writeHead(status: number, rest: unknown[]): ServerResponse {
    const res = this.res;
    if (this.dropped) return res;
    const [reason] = rest;
    const headers = typeof reason === 'string' ? rest[1] : reason;
    if (typeof reason === 'string') res.statusMessage = reason;
    res.statusCode = status;
    if (Array.isArray(headers))
      for (let i = 0; i + 1 < headers.length; i += 2)
        res.setHeader(String(headers[i]), headers[i + 1]);
    else if (headers)
      for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders))
        if (value !== undefined) res.setHeader(name, value);
    return res;
  }

  private write(chunk: unknown, encoding: unknown, callback: unknown): boolean {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') this.callbacks.push(done as Callback);
    if (this.dropped) {
      this.acknowledge();
      return true;
    }
    if (!this.ended) this.hold(bytes(chunk, encoding));
    return true;
  }

  /**
   * Holds a chunk of the answer up to `maxResponseBytes` + 1 bytes (a copy of the part that fits):
   * an answer over the limit takes no more memory than that while it is written, and still fails
   * the record as too large when it ends.
   */
  private hold(chunk: Buffer): void {
    const room = this.maxResponseBytes + 1 - this.kept;
    if (room <= 0 || chunk.length === 0) return;
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(part);
    this.kept += part.length;
  }

  private end(chunk: unknown, encoding: unknown, callback: unknown): void {
    for (const arg of [chunk, encoding, callback])
      if (typeof arg === 'function') this.callbacks.push(arg as Callback);
    if (this.dropped) {
      this.acknowledge();
      return;
    }
    if (this.ended) return;
    this.ended = true;
    if (typeof chunk !== 'function' && chunk !== undefined && chunk !== null)
      this.hold(bytes(chunk, encoding));
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const res = this.res;
    this.settle({ status: res.statusCode, headers: res.getHeaders(), body }).then(
      (replacement) => {
        if (replacement) replaceWith(res, replacement);
        this.flush(replacement ? replacement.body : body);
      },
      (error: unknown) => {
        // Nothing went out: the error's answer replaces the held one entirely.
        this.release();
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        res.statusCode = 500;
        this.fail(error);
      },
    );
  }

  /** Writes the whole answer through Node's own methods, with a Content-Length (the body is complete). */
  private flush(body: Buffer): void {
    const res = this.res;
    const { writeHead, end } = this.below;
    if (!this.dropped) this.release();
    if (
      !res.hasHeader('content-length') &&
      !res.hasHeader('transfer-encoding') &&
      !bodiless(res.statusCode)
    )
      res.setHeader('content-length', body.length);
    const callbacks = this.callbacks.splice(0);
    try {
      writeHead.call(res, res.statusCode);
      (end as (chunk: Buffer, callback: () => void) => ServerResponse).call(res, body, () => {
        for (const done of callbacks) done();
      });
    } catch (error) {
      this.fail(error);
    }
  }

  private acknowledge(): void {
    for (const done of this.callbacks.splice(0)) process.nextTick(done);
  }
}
