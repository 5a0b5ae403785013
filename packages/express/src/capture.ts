/** @module Buffers an Express (node:http) response until the engine has recorded it, then flushes it. */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HttpResponseRecord, PendingRun } from '@webhook-idempotency/core';

type Callback = (error?: Error | null) => void;

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

/**
 * Replaces `writeHead`, `write` and `end` on this response (which covers `send`, `json`,
 * `sendFile` and piped streams) so that nothing reaches the socket until `run.finish` has
 * recorded the answer; a failure there goes to `onError` (Express's `next`).
 */
export function captureResponse(res: ServerResponse, run: PendingRun, onError: (error: unknown) => void): void {
  const { writeHead, write, end } = res;
  const chunks: Buffer[] = [];
  const callbacks: Callback[] = [];
  let ended = false;

  res.writeHead = function capturedWriteHead(status: number, reason?: unknown, headers?: unknown) {
    if (typeof reason !== 'string') headers = reason;
    else res.statusMessage = reason;
    res.statusCode = status;
    if (Array.isArray(headers)) for (let i = 0; i + 1 < headers.length; i += 2) res.setHeader(String(headers[i]), headers[i + 1]);
    else if (headers) for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) if (value !== undefined) res.setHeader(name, value);
    return res;
  } as typeof res.writeHead;

  res.write = function capturedWrite(chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (!ended) chunks.push(bytes(chunk, encoding));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') callbacks.push(done as Callback);
    return true;
  } as typeof res.write;

  res.end = function capturedEnd(chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (ended) return res;
    ended = true;
    if (typeof chunk === 'function') callback = chunk;
    else if (chunk !== undefined && chunk !== null) chunks.push(bytes(chunk, encoding));
    if (typeof encoding === 'function') callback = encoding;
    const body = Buffer.concat(chunks);
    const restore = () => Object.assign(res, { writeHead, write, end });
    run.finish({ status: res.statusCode, headers: res.getHeaders(), body }).then(
      (replacement) => {
        restore();
        if (replacement) return sendRecord(res, replacement, true);
        res.end(body, () => {
          for (const done of callbacks) done();
          if (typeof callback === 'function') (callback as Callback)();
        });
      },
      (error: unknown) => {
        restore();
        onError(error);
      },
    );
    return res;
  } as typeof res.end;
}
