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

const EMPTY = Buffer.alloc(0);

/**
 * What Koa's `respond` would send for `ctx.body`: a string or bytes as they are, an object as
 * `JSON.stringify` (the text, never copied into a Buffer, and put back as the body), a stream (Node or web), Blob or
 * Response read to the end and put back as a Buffer, and no body as Koa's status text (or
 * nothing for 204/205/304). Only a body that must be read returns a promise.
 */
export function responseBody(ctx: Context): Buffer | string | Promise<Buffer> {
  const { body } = ctx;
  if (body === null || body === undefined) {
    if (EMPTY_STATUS.has(ctx.status) || !isRecordedStatus(ctx.status)) return EMPTY;
    // Koa answers a 2xx without a body with its status text: make that the body, keeping the status.
    const { status } = ctx;
    const text = ctx.message || String(status);
    ctx.body = text;
    ctx.status = status;
    return text;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'object' && isStreamBody(body)) return readBody(ctx, body);
  // The text Koa's respond would make; set as the body, so Koa sends it instead of making it again
  // (its Content-Type, already JSON's, is kept; the length is set from the text).
  const text: string | undefined = JSON.stringify(body);
  if (text !== undefined) ctx.body = text;
  return text;
}

/** A streamed body read to the end and put back as the bytes Koa then sends. */
async function readBody(
  ctx: Context,
  body: Readable | Blob | ReadableStream | Response,
): Promise<Buffer> {
  const bytes = await collectBody(body instanceof Response ? body.body : body);
  ctx.body = bytes;
  return bytes;
}

/** Sends `record` through Koa; `replace` drops the headers set so far. */
export function sendRecord(ctx: Context, record: HttpResponseRecord, replace = false): void {
  if (replace) for (const name of ctx.res.getHeaderNames()) ctx.remove(name);
  ctx.status = record.status;
  ctx.set(record.headers as Record<string, string | string[]>);
  ctx.body = record.body;
}
