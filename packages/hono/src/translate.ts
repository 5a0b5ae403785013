/** @module Hono's request and response to and from the engine's neutral records. */
import { Buffer } from 'node:buffer';
import type { HttpRequest } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import {
  type PendingRun,
  REQUEST_TOO_LARGE,
  readRequestBody,
  readStreamUpTo,
  requestTooLarge,
} from '@webhook-idempotency/core/adapter';
import type { Context } from 'hono';

/** The handler's answer as `run.finish` takes it. */
type CapturedResponse = Parameters<PendingRun['finish']>[0];

/** Statuses whose Response must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The engine's view of the request: path and query, lower-cased headers, and the exact bytes,
 * read from a clone so that `c.req` and `c.req.raw` stay unread for the handler (`undefined` when
 * something already read the body). At most `limit` bytes are read: past them (announced by
 * `Content-Length` or counted while reading) the answer is the `413` Response instead.
 */
export async function toHttpRequest(
  c: Context,
  limit: number,
): Promise<HttpRequest<Context> | Response> {
  const { raw } = c.req;
  const url = new URL(raw.url);
  const rawBody = await readRequestBody(raw, limit);
  if (rawBody === REQUEST_TOO_LARGE) return toResponse(requestTooLarge(limit));
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
  const { bytes } = await readStreamUpTo(response.body, limit);
  const body = NULL_BODY.has(status) || bytes.length === 0 ? null : bytes;
  return {
    captured: { status, headers: record, body: bytes },
    sent: new Response(body, { status, statusText, headers }),
  };
}
