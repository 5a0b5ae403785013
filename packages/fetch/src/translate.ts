/** @module Fetch `Request`/`Response` to and from the engine's neutral records. */
import { Buffer } from 'node:buffer';
import type { HttpRequest, HttpResponseRecord } from '@webhook-idempotency/core';
import type { PendingRun } from '@webhook-idempotency/core/adapter';

/** The handler's answer as `run.finish` takes it. */
type CapturedResponse = Parameters<PendingRun['finish']>[0];

/** What {@link readBody} returns for a body past the limit. */
export const TOO_LARGE = Symbol('too large');

const ignore = (): undefined => undefined;

/** Statuses whose Response must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The lower-cased header record the engine reads (repeated request headers come joined by `, `). */
function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) record[name] = value;
  return record;
}

/** Reads `stream` to its end, or stops (cancelling it) once more than `limit` bytes came. */
async function readUpTo(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<{ bytes: Buffer; over: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks, size), over: false };
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: a tee branch's cancel settles only once the other branch is cancelled too.
      reader.cancel().catch(ignore);
      return { bytes: Buffer.concat(chunks, size), over: true };
    }
  }
}

/**
 * The exact request bytes, read from a clone so that `request` itself stays unread for the
 * handler: empty for a request without a body, `undefined` when something already read the body,
 * {@link TOO_LARGE} past `limit` bytes.
 */
export async function readBody(
  request: Request,
  limit: number,
): Promise<Buffer | undefined | typeof TOO_LARGE> {
  if (request.body === null) return Buffer.alloc(0);
  if (request.bodyUsed) return undefined;
  if (Number(request.headers.get('content-length')) > limit) return TOO_LARGE;
  const { bytes, over } = await readUpTo(request.clone().body as ReadableStream<Uint8Array>, limit);
  if (!over) return bytes;
  // Both branches of the clone's tee cancelled: the source stops, and nobody reads this request again.
  request.body.cancel().catch(ignore);
  return TOO_LARGE;
}

/** The engine's view of `request`: path and query, lower-cased headers, the raw bytes; no parsed body. */
export function toHttpRequest(request: Request, rawBody: Buffer | undefined): HttpRequest<Request> {
  const url = new URL(request.url);
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers: headerRecord(request.headers),
    rawBody,
    body: undefined,
    native: request,
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

/**
 * The handler's `Response` as the engine records it. A 2xx body is read to the end (at most
 * `limit` bytes and one chunk: a longer one fails the record as too large) and `sent` is a new
 * Response with those bytes and the same status and headers; any other answer is sent as it is,
 * unread (it is never stored).
 */
export async function capture(
  response: Response,
  limit: number,
): Promise<{ captured: CapturedResponse; sent: Response }> {
  if (!(response instanceof Response))
    throw new TypeError(
      `the handler returned ${response === null ? 'null' : typeof response}, not a Response`,
    );
  const { status, statusText, headers } = response;
  const record = Object.fromEntries(headers);
  if (status < 200 || status > 299 || response.body === null)
    return { captured: { status, headers: record, body: Buffer.alloc(0) }, sent: response };
  const { bytes } = await readUpTo(response.body, limit);
  const body = NULL_BODY.has(status) || bytes.length === 0 ? null : bytes;
  return {
    captured: { status, headers: record, body: bytes },
    sent: new Response(body, { status, statusText, headers }),
  };
}
