/** @module Fetch `Request`/`Response` to and from the engine's neutral records. */
import { Buffer } from 'node:buffer';
import type { HttpRequest } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { type PendingRun, readStreamUpTo } from '@webhook-idempotency/core/adapter';

/** The handler's answer as `run.finish` takes it. */
type CapturedResponse = Parameters<PendingRun['finish']>[0];

/** Statuses whose Response must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The lower-cased header record the engine reads (repeated request headers come joined by `, `). */
function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) record[name] = value;
  return record;
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
  const { bytes } = await readStreamUpTo(response.body, limit);
  const body = NULL_BODY.has(status) || bytes.length === 0 ? null : bytes;
  return {
    captured: { status, headers: record, body: bytes },
    sent: new Response(body, { status, statusText, headers }),
  };
}
