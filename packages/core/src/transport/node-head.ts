/**
 * @module The head (status, status text, headers) of a response the hold answers on: replaced by
 * the engine's answer, or put back as it was recorded when something changed it after. Under
 * Express each read and each write of a response's property is slow (`bench:express-response`),
 * so the recorded head is compared first and written only when it differs.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HttpResponseRecord } from '../http/types';

/** Drops everything the handler's answer set on the response (status text, headers), for an answer that replaces it. */
export function discardAnswer(res: ServerResponse): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusMessage = '';
}

/** Puts `status` and `headers` on the response in place of everything its head held. */
function putHead(res: ServerResponse, status: number, headers: OutgoingHttpHeaders): void {
  discardAnswer(res);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) res.setHeader(name, value);
}

/** Puts `record`'s status and headers on the response in place of the handler's. */
export function replaceAnswer(res: ServerResponse, record: HttpResponseRecord): void {
  putHead(res, record.status, record.headers);
}

/**
 * The head the answer was recorded with, put back on the response when something changed it since
 * (an error handler's status and headers over a held answer, whose own `end` the hold ignores):
 * what goes out is what was recorded, and what a duplicate is answered with.
 */
export function recordedHead(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
): void {
  const now = res.getHeaders();
  const names = Object.keys(now);
  const same =
    res.statusCode === status &&
    names.length === Object.keys(headers).length &&
    names.every((name) => now[name] === headers[name]);
  if (!same) putHead(res, status, headers);
}
