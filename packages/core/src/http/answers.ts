/** @module The engine's own answers (400/401/409/422/503), rendered from the core error table. */
import {
  ErrorCode,
  HTTP_STATUS_BY_CODE,
  type IdempotencyError,
  type RequestInProgress,
  isIdempotencyError,
} from '../errors';
import type { EngineConfig } from './options';
import type { HttpRequest, HttpResponseRecord } from './types';

/** Codes the engine answers itself; every other error goes to the framework's error handling. */
const ANSWERED: ReadonlySet<string> = new Set([
  ErrorCode.KEY_INVALID,
  ErrorCode.KEY_MISSING,
  ErrorCode.SIGNATURE_INVALID,
  ErrorCode.IN_PROGRESS,
  ErrorCode.CLAIM_LOST,
  ErrorCode.FINGERPRINT_MISMATCH,
  ErrorCode.STORE,
  ErrorCode.HANDLER_TIMEOUT,
  ErrorCode.PAYLOAD_INVALID,
  ErrorCode.EVENT_UNROUTED,
]);

/**
 * A JSON error answer: `{ "code": "ERR_IDEMPOTENCY_…", "message": "…" }`, never cached by
 * intermediaries.
 */
export function errorAnswer(
  status: number,
  error: IdempotencyError,
  headers: Record<string, string> = {},
): HttpResponseRecord {
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    },
    body: Buffer.from(
      JSON.stringify({ code: error.code, message: publicMessage(error), ...issuesOf(error) }),
    ),
  };
}

/** A schema's issues, listed in the answer to a payload that failed them. */
function issuesOf(error: IdempotencyError): { issues?: readonly string[] } {
  const { issues } = error as { issues?: unknown };
  return Array.isArray(issues) ? { issues } : {};
}

/** A store failure's message names hosts, ports and driver internals: callers get a generic one (the event and `cause` keep the detail). */
function publicMessage(error: IdempotencyError): string {
  if (error.code !== ErrorCode.STORE) return error.message;
  const store = (error as { store?: unknown }).store === 'inbox' ? 'inbox' : 'receipts';
  return `The ${store} store is unavailable; retry later`;
}

/**
 * What to answer for an error of the guard or the engine, or `undefined` when the error is not
 * one the engine answers (the handler's own, a programmer error): the adapter hands those to
 * the framework. Statuses come from `HTTP_STATUS_BY_CODE`; `inProgressStatus` and the preset's
 * `inProgress`/`unauthorized` shape the two protocol-sensitive answers.
 */
export function answerFor(
  error: unknown,
  config: Pick<EngineConfig, 'preset' | 'inProgressStatus'>,
  request: HttpRequest,
): HttpResponseRecord | undefined {
  if (!isIdempotencyError(error) || !ANSWERED.has(error.code)) return undefined;
  const { preset } = config;
  if (error.code === ErrorCode.IN_PROGRESS) {
    const seconds = (error as RequestInProgress).retryAfterSeconds ?? 1;
    return (
      preset?.inProgress?.(request, seconds) ??
      errorAnswer(config.inProgressStatus, error, { 'retry-after': String(seconds) })
    );
  }
  if (error.code === ErrorCode.SIGNATURE_INVALID) {
    return preset?.unauthorized?.(request) ?? errorAnswer(HTTP_STATUS_BY_CODE[error.code], error);
  }
  const retry: Record<string, string> =
    error.code === ErrorCode.CLAIM_LOST ||
    error.code === ErrorCode.STORE ||
    error.code === ErrorCode.HANDLER_TIMEOUT
      ? { 'retry-after': '1' }
      : {};
  return errorAnswer(HTTP_STATUS_BY_CODE[error.code], error, retry);
}
