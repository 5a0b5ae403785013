/**
 * @module The Web-standard transport, shared by the adapters that get a `Request` and answer a
 * `Response` (fetch handlers, Hono): the request's bytes read under a limit, the handler's
 * `Response` captured for the record, and an engine record turned into a `Response`.
 */
import { Buffer } from 'node:buffer';
import {
  REQUEST_TOO_LARGE,
  readRequestBody,
  readStreamUpTo,
  requestTooLarge,
} from '../http/request-body';
import { type CapturedResponse, isRecordedStatus } from '../http/response-codec';
import type { HttpRequest, HttpResponseRecord } from '../http/types';
import { answerWhileDiscarding } from './web-discard';

/** Statuses whose `Response` must have a null body (the Fetch standard's null body statuses, and 101/103). */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** The lower-cased header record the engine reads (repeated request headers come joined by `, `). */
function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) record[name] = value;
  return record;
}

/**
 * The engine's view of `request`: path and query, lower-cased headers, and the exact bytes, read
 * from a clone so that `request` stays unread for the handler (`rawBody` is `undefined` when
 * something already read it); no parsed body. At most `limit` bytes are read: past them
 * (announced by `Content-Length` or counted while reading) the result is the `413` `Response` to
 * answer instead, and no signature is checked. That `413` goes out at once; its end waits while
 * the rest of the body is read off and discarded, at most 16 MiB, a 1 s pause or 10 s (then the body
 * is cancelled), so that a sender still writing reads the answer instead of a reset.
 * @example
 * const record = await readWebRequest(c.req.raw, c, maxRequestBytes);
 * if (record instanceof Response) return record;
 */
export async function readWebRequest<Native>(
  request: Request,
  native: Native,
  limit: number,
): Promise<HttpRequest<Native> | Response> {
  const url = new URL(request.url);
  const rawBody = await readRequestBody(request, limit);
  if (rawBody === REQUEST_TOO_LARGE)
    return answerWhileDiscarding(request, toWebResponse(requestTooLarge(limit)));
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers: headerRecord(request.headers),
    rawBody,
    body: undefined,
    native,
  };
}

/**
 * A `Response` for an engine record (a replay or the guard's own answer): repeated headers
 * appended one by one, and a null body for an empty one or a null body status.
 */
export function toWebResponse(record: HttpResponseRecord): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record.headers))
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item);
  const body =
    NULL_BODY_STATUSES.has(record.status) || record.body.length === 0 ? null : record.body;
  return new Response(body, { status: record.status, headers });
}

/** What {@link captureWebResponse} makes of the handler's `Response`. */
export interface CapturedWebResponse {
  /** What `run.finish` takes. */
  readonly captured: CapturedResponse;
  /** What to send when the engine has no replacement: the handler's `Response`, or one with the bytes read from it. */
  readonly sent: Response;
}

/**
 * The handler's `Response` as the engine records it. A recorded (2xx) body is read to the end (at
 * most `limit` bytes and one chunk: a longer one fails the record as too large) and `sent` is a new
 * `Response` with those bytes and the same status, status text and headers; any other answer is
 * sent as it is, unread (it is never stored).
 * @example
 * const { captured, sent } = await captureWebResponse(response, engine.config.maxResponseBytes);
 * const replacement = await run.finish(captured);
 * return replacement ? toWebResponse(replacement) : sent;
 */
export async function captureWebResponse(
  response: Response,
  limit: number,
): Promise<CapturedWebResponse> {
  const { status, statusText, headers } = response;
  const record = Object.fromEntries(headers);
  if (!isRecordedStatus(status) || response.body === null)
    return { captured: { status, headers: record, body: Buffer.alloc(0) }, sent: response };
  const { bytes } = await readStreamUpTo(response.body, limit);
  const body = NULL_BODY_STATUSES.has(status) || bytes.length === 0 ? null : bytes;
  return {
    captured: { status, headers: record, body: bytes },
    sent: new Response(body, { status, statusText, headers }),
  };
}
