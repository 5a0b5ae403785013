/** @module Reads `ctx.body` as the bytes Koa will send, and sends an engine record the Koa way. */
import type { Readable } from 'node:stream';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { collectBody, isRecordedStatus } from '@webhook-idempotency/core/adapter';
import type { Context } from 'koa';

const EMPTY_STATUS = new Set([204, 205, 304]);

function isStreamBody(body: object): body is Readable | Blob | ReadableStream | Response {
  return (
    typeof (body as Readable).pipe === 'function' ||
    body instanceof Blob ||
    (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) ||
    (typeof Response !== 'undefined' && body instanceof Response)
  );
}

/**
 * The bytes Koa's `respond` would send for `ctx.body`: a string or Buffer as is, an object as
 * `JSON.stringify`, a stream (Node or web), Blob or Response read to the end and put back as a
 * Buffer, and no body as Koa's status text (or nothing for 204/205/304).
 */
export async function responseBytes(ctx: Context): Promise<Buffer> {
  const { body } = ctx;
  if (body === null || body === undefined) {
    if (EMPTY_STATUS.has(ctx.status) || !isRecordedStatus(ctx.status)) return Buffer.alloc(0);
    // Koa answers a 2xx without a body with its status text: make that the body, keeping the status.
    const { status } = ctx;
    ctx.body = ctx.message || String(status);
    ctx.status = status;
    return Buffer.from(ctx.body as string);
  }
  if (typeof body === 'string' || body instanceof Uint8Array) return collectBody(body);
  if (typeof body === 'object' && isStreamBody(body)) {
    const bytes = await collectBody(body instanceof Response ? body.body : body);
    ctx.body = bytes;
    return bytes;
  }
  return Buffer.from(JSON.stringify(body));
}

/** Sends `record` through Koa; `replace` drops the headers set so far. */
export function sendRecord(ctx: Context, record: HttpResponseRecord, replace = false): void {
  if (replace) for (const name of ctx.res.getHeaderNames()) ctx.remove(name);
  ctx.status = record.status;
  ctx.set(record.headers as Record<string, string | string[]>);
  ctx.body = record.body;
}
