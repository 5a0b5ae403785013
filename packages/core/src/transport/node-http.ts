/**
 * @module The held response over node:http, shared by the adapters whose framework ends on a
 * `ServerResponse` (Express; NestJS on either platform): the handler's answer is held on the
 * response until the engine has recorded it, then flushed through the layer below. The guard's own
 * answers (a replay, its deadline's 503) go out through the same layer. Framework-free: node:http
 * types and Buffers only. The hold's state and its replacement methods: `./node-held`.
 */
import type { ServerResponse } from 'node:http';
import type { PendingRun } from '../http/decision';
import type { HttpResponseRecord } from '../http/types';
import { replaceAnswer } from './node-head';
import { fail, flush, heldOf, install } from './node-held';

/** How {@link holdResponse} holds one response. */
export interface HoldOptions {
  /** The engine's `maxResponseBytes`: past it (and one byte more) the rest of the answer is not held. */
  readonly maxResponseBytes: number;
  /**
   * The framework's error handling (Express's `next`, Nest's exception filters): called with an
   * answer that cannot go out (over `maxResponseBytes`, the store failed, Node refused its head).
   * Nothing of the held answer was sent: the response it gets has no headers and status 500.
   */
  readonly onError: (error: unknown) => void;
}

/** A header change after the guard answered: ignored, so that a late reply cannot throw `ERR_HTTP_HEADERS_SENT`. */
function ignoredHeader(this: ServerResponse): ServerResponse {
  return this;
}

/**
 * Sends `record` on a response nothing has been written to yet (the engine's own answers and
 * replays, before any hold), over the headers already set on it.
 */
export function sendRecord(res: ServerResponse, record: HttpResponseRecord): void {
  res.statusCode = record.status;
  for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
  res.end(record.body);
}

/**
 * Holds the answer of a claimed run: replaces `writeHead`, `write` and `end` on this response only
 * (which covers Express's `send`, `json`, `sendFile`, piped streams and Fastify's `reply.raw`), so
 * that nothing reaches the socket until `run.finish` has recorded the answer; then the answer (or
 * the engine's replacement) is flushed through the methods it replaced, with a `Content-Length`.
 * At most `maxResponseBytes` + 1 bytes are held: a longer answer fails as too large. When the
 * run's deadline passes first, the guard's answer goes out instead ({@link answerNow}). No
 * prototype is touched: other responses and other apps in the process never run this code.
 * @example
 * holdResponse(res, decision.run, { maxResponseBytes: engine.config.maxResponseBytes, onError: next });
 */
export function holdResponse(res: ServerResponse, run: PendingRun, options: HoldOptions): void {
  install(res, run, options.onError, options.maxResponseBytes);
  // Without a deadline (not transactional) nothing can answer first: no listener to set up.
  if (run.expires) run.onExpire((answer) => answerNow(res, answer, options.onError));
}

/**
 * Sends the guard's answer now (a replay, one of its own answers, the 503 of its transactional
 * deadline, or of a transaction the store lost) in place of whatever the response holds or has
 * set, and drops whatever is written on it later: the handler's late answer, the framework's own
 * reply. Header changes after that are ignored too, so a late reply cannot throw
 * `ERR_HTTP_HEADERS_SENT` into the framework's error handling. Works on a held response and on
 * one nothing holds; `onError` gets the error when Node refuses the answer. False (nothing done)
 * when the response's answer has already gone out or been handed to the engine.
 */
export function answerNow(
  res: ServerResponse,
  answer: HttpResponseRecord,
  onError: (error: unknown) => void,
): boolean {
  const found = heldOf(res);
  if (found?.passedOn || found?.ended || res.headersSent) return false;
  const state = found ?? install(res, undefined, onError, 0);
  state.dropped = true;
  try {
    replaceAnswer(res, answer);
    flush(res, state, answer.body);
  } catch (error) {
    fail(res, state, error);
    return true;
  }
  res.setHeader = ignoredHeader as ServerResponse['setHeader'];
  res.removeHeader = ignoredHeader as ServerResponse['removeHeader'];
  res.appendHeader = ignoredHeader as ServerResponse['appendHeader'];
  return true;
}

/**
 * The handler failed with `error` (the framework routed it to its error handling): tells the
 * engine, whose receipt is then `failed`. When the failure was the store's (it lost the
 * transaction under the handler), the guard's 503 goes out at once ({@link answerNow}) and this
 * resolves `true`: do not pass the error on. Otherwise the response is passed on, so that the
 * framework's error answer goes straight out and is never stored, and this resolves `false`
 * (at once for a response no run holds).
 */
export async function abortHeld(res: ServerResponse, error: unknown): Promise<boolean> {
  const state = heldOf(res);
  if (!state?.run || state.passedOn) return false;
  const lost = await state.run.abort(error);
  if (lost && answerNow(res, lost, state.onError)) return true;
  state.passedOn = true;
  return false;
}
