/** @module Hono's request and response to and from the engine's neutral records. */
import { Buffer } from 'node:buffer';
import type { HttpRequest, HttpResponseRecord } from '@webhook-idempotency/core';
import type { PendingRun } from '@webhook-idempotency/core/adapter';
import type { Context } from 'hono';

/** The handler's answer as `run.finish` takes it. */
type CapturedResponse = Parameters<PendingRun['finish']>[0];

/** Statuses whose Response must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The engine's view of the request: path and query, lower-cased headers, and the exact bytes,
 * read from a clone so that `c.req` and `c.req.raw` stay unread for the handler (`undefined` when
 * something already read the body). A `bodyLimit()` before this middleware bounds the read.
 */
export async function toHttpRequest(c: Context): Promise<HttpRequest<Context>> {
  const { raw } = c.req;
  const url = new URL(raw.url);
  const rawBody =
    raw.body === null
      ? Buffer.alloc(0)
      : raw.bodyUsed
        ? undefined
        : Buffer.from(await raw.clone().arrayBuffer());
  return {
    method: raw.method,
    url: url.pathname + url.search,
    headers: Object.fromEntries(raw.headers),
    rawBody,
    body: undefined,
    native: c,
  };
}

/** A Response for an engine record (a replay or the guard's own answer). */
export function toResponse(record: HttpResponseRecord): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record.headers))
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item);
  const body = NULL_BODY.has(record.status) || record.body.length === 0 ? null : record.body;
  return new Response(body, { status: record.status, headers });
}

/** Reads `stream` to its end, or stops (cancelling it) once more than `limit` bytes came. */
async function readUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<Buffer> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks, size);
}

/**
 * `c.res` as the engine records it. A 2xx body is read (at most `limit` bytes and one chunk: a
 * longer one fails the record as too large) and `sent` carries those bytes with the same status
 * and headers; any other answer stays as it is, unread (it is never stored).
 */
export async function capture(
  response: Response,
  limit: number,
): Promise<{ captured: CapturedResponse; sent: Response }> {
  const { status, statusText, headers } = response;
  const record = Object.fromEntries(headers);
  if (status < 200 || status > 299 || response.body === null)
    return { captured: { status, headers: record, body: Buffer.alloc(0) }, sent: response };
  const bytes = await readUpTo(response.body, limit);
  const body = NULL_BODY.has(status) || bytes.length === 0 ? null : bytes;
  return {
    captured: { status, headers: record, body: bytes },
    sent: new Response(body, { status, statusText, headers }),
  };
}
