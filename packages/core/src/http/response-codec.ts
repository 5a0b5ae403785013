/** @module The response record codec: an HTTP answer as a JSON-safe value, replayed byte for byte. */
import { isUtf8 } from 'node:buffer';
import { ErrorCode, IdempotencyError } from '../errors';
import { replayableHeaders, type OutgoingHeaders } from './headers';
import type { HttpResponseRecord } from './types';

/** A handler's answer as the adapter captured it, before the allow-list. */
export interface CapturedResponse {
  readonly status: number;
  readonly headers: OutgoingHeaders;
  readonly body: Buffer;
}

/**
 * The one rule for what the guard records: an answer with a 2xx status completes the receipt and
 * is replayed to every retry; any other status fails it (the next delivery runs the handler again)
 * and goes out unrecorded, so an adapter need not read its body.
 * @example
 * if (!isRecordedStatus(response.status)) return { captured: { status, headers, body: EMPTY }, sent: response };
 */
export function isRecordedStatus(status: number): boolean {
  return status >= 200 && status <= 299;
}

/**
 * What the receipt's `response` holds (through the guard's JSON codec). The store column is
 * text, so the body is kept as UTF-8 when that round-trips exactly and as base64 otherwise.
 */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: string;
  readonly encoding: 'utf8' | 'base64';
}

/**
 * Encodes a captured answer for storage: allow-listed headers only (see `replayableHeaders`).
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` when the body exceeds `maxBytes`.
 */
export function encodeResponse(
  response: CapturedResponse,
  options: { maxBytes: number; replayedHeader: string },
): StoredResponse {
  const { body } = response;
  if (body.length > options.maxBytes) {
    throw new IdempotencyError(
      ErrorCode.RESPONSE_TOO_LARGE,
      `The handler's answer is ${body.length} bytes; the maximum stored response size (maxResponseBytes) is ${options.maxBytes}`,
    );
  }
  // Valid UTF-8 decodes and re-encodes to the same bytes; anything else goes as base64.
  const utf8 = isUtf8(body);
  return {
    status: response.status,
    headers: replayableHeaders(response.headers, options.replayedHeader),
    body: body.toString(utf8 ? 'utf8' : 'base64'),
    encoding: utf8 ? 'utf8' : 'base64',
  };
}

const isHeaderValue = (value: unknown): boolean =>
  typeof value === 'string' ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/**
 * Decodes what the guard stored for an HTTP answer (`encodeResponse`) back into a response record.
 * @throws {TypeError} when `value` is not a stored response (a receipt written by other code).
 */
export function decodeResponse(value: unknown): HttpResponseRecord {
  const stored = value as StoredResponse | null;
  if (
    typeof stored !== 'object' ||
    stored === null ||
    !Number.isInteger(stored.status) ||
    typeof stored.body !== 'string' ||
    (stored.encoding !== 'utf8' && stored.encoding !== 'base64') ||
    typeof stored.headers !== 'object' ||
    stored.headers === null ||
    !Object.values(stored.headers).every(isHeaderValue)
  ) {
    throw new TypeError('the stored response is not an HTTP response record');
  }
  return {
    status: stored.status,
    headers: { ...stored.headers },
    body: Buffer.from(stored.body, stored.encoding),
  };
}
