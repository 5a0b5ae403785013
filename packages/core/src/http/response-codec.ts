/**
 * @module The stored answer: an HTTP answer as the receipt's text, and back, replayed byte for
 * byte. With the guard's default JSON codec the captured answer is written straight as that text
 * ({@link answerText}) and a replay reads it straight back ({@link answerOfText}): one encoding,
 * one decoding, no intermediate record. Under a codec of one's own the record goes through it
 * ({@link encodeResponse}, {@link decodeResponse}), as it always did. Both write the same shape,
 * so a receipt stored by either (or by an earlier version) replays under the other.
 */
import { isUtf8 } from 'node:buffer';
import { ErrorCode, IdempotencyError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import { replayableHeaders, replayableHeadersJson, type OutgoingHeaders } from './headers';
import type { HttpResponseRecord } from './types';

/** A handler's answer as the adapter captured it, before the allow-list. */
export interface CapturedResponse {
  readonly status: number;
  readonly headers: OutgoingHeaders;
  /**
   * The body's bytes, or the text the framework sent (a string goes out as its UTF-8 bytes, and is
   * stored as that text when those bytes are exactly it, without copying it into a Buffer).
   */
  readonly body: Buffer | string;
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
 * What the receipt's `response` holds, as JSON text. The store column is text, so the body is
 * kept as UTF-8 when that round-trips exactly and as base64 otherwise.
 */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: string;
  readonly encoding: 'utf8' | 'base64';
}

/** An unpaired UTF-16 surrogate: a string holding one is not the text of the bytes it goes out as. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The body to store: a string when it is exactly the text of the bytes that go out (then stored as
 * it is, UTF-8), else its bytes.
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` when it is over `maxBytes`.
 */
function sized(body: Buffer | string, maxBytes: number): Buffer | string {
  if (typeof body !== 'string') {
    if (body.length > maxBytes) throw tooLarge(body.length, maxBytes);
    return body;
  }
  // At most 3 bytes per UTF-16 unit: a short text is within any limit it fits three times into.
  const size = body.length * 3 <= maxBytes ? 0 : Buffer.byteLength(body);
  if (size > maxBytes) throw tooLarge(size, maxBytes);
  return LONE_SURROGATE.test(body) ? Buffer.from(body) : body;
}

/** The stored text of a sized body: UTF-8 when the bytes are valid UTF-8 (they decode and re-encode to the same bytes), else base64. */
const textOf = (body: Buffer | string, utf8: boolean): string =>
  typeof body === 'string' ? body : body.toString(utf8 ? 'utf8' : 'base64');

function tooLarge(size: number, maxBytes: number): IdempotencyError {
  return new IdempotencyError(
    ErrorCode.RESPONSE_TOO_LARGE,
    `The handler's answer is ${size} bytes; the maximum stored response size (maxResponseBytes) is ${maxBytes}`,
  );
}

/**
 * The receipt's text for a captured answer under the default JSON codec: the JSON of its
 * {@link StoredResponse}, written in one pass (allow-listed headers only; `except` is the
 * lower-cased replay marker, never stored).
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` when the body exceeds `maxBytes`.
 */
export function answerText(response: CapturedResponse, maxBytes: number, except: string): string {
  const body = sized(response.body, maxBytes);
  const utf8 = typeof body === 'string' || isUtf8(body);
  const headers = replayableHeadersJson(response.headers, except);
  return `{"status":${JSON.stringify(response.status)},"headers":${headers},"body":${JSON.stringify(textOf(body, utf8))},"encoding":"${utf8 ? 'utf8' : 'base64'}"}`;
}

/**
 * Encodes a captured answer as the record a codec of one's own stores: allow-listed headers only
 * (see `replayableHeaders`).
 * @throws {IdempotencyError} `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` when the body exceeds `maxBytes`.
 */
export function encodeResponse(
  response: CapturedResponse,
  options: { maxBytes: number; replayedHeader: string },
): StoredResponse {
  const body = sized(response.body, options.maxBytes);
  const utf8 = typeof body === 'string' || isUtf8(body);
  return {
    status: response.status,
    headers: replayableHeaders(response.headers, options.replayedHeader),
    body: textOf(body, utf8),
    encoding: utf8 ? 'utf8' : 'base64',
  };
}

/** A decoded answer: a response record whose headers are its own object (a replay adds its marker to them). */
export interface DecodedAnswer extends HttpResponseRecord {
  readonly headers: Record<string, string | string[]>;
}

const isHeaderValue = (value: unknown): boolean =>
  typeof value === 'string' ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/**
 * The response record a decoded receipt holds, or `undefined` when it holds something else (a
 * result `guard.run` stored, or a receipt written by other code). Its headers are `value`'s own
 * object: the caller copies them when `value` is not its own.
 */
export function recordOf(value: unknown): DecodedAnswer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (!('status' in value && 'headers' in value && 'body' in value && 'encoding' in value))
    return undefined;
  const { status, headers, body, encoding } = value;
  if (
    typeof status !== 'number' ||
    !Number.isInteger(status) ||
    typeof body !== 'string' ||
    (encoding !== 'utf8' && encoding !== 'base64') ||
    typeof headers !== 'object' ||
    headers === null ||
    !Object.values(headers).every(isHeaderValue)
  )
    return undefined;
  // Every value was checked above to be a string or an array of strings.
  const checked = headers as Record<string, string | string[]>;
  return { status, headers: checked, body: Buffer.from(body, encoding) };
}

/**
 * The answer a receipt's text holds under the default JSON codec, decoded once (its headers a
 * fresh object), or `undefined` when the text is JSON but no HTTP answer.
 * @throws {SyntaxError} when the text is not JSON.
 */
export function answerOfText(text: string): DecodedAnswer | undefined {
  return recordOf(JSON.parse(text));
}

/**
 * Decodes what the guard stored for an HTTP answer (`encodeResponse`) back into a response record.
 * @throws {TypeError} when `value` is not a stored response (a receipt written by other code).
 */
export function decodeResponse(value: unknown): HttpResponseRecord {
  const record = recordOf(value);
  if (!record) throw new TypeError('the stored response is not an HTTP response record');
  return { ...record, headers: { ...record.headers } };
}

/** How an engine stores and replays answers, resolved once from its guard's codec. */
export interface AnswerCodec {
  /**
   * The receipt's text for a captured 2xx answer, encoded once: its JSON text under the guard's
   * default codec, else the guard's codec applied to the stored record.
   * @throws {IdempotencyError} `ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE` over `maxResponseBytes`, or what the codec threw.
   */
  readonly storeAnswer: (response: CapturedResponse) => string;
  /**
   * The answer a receipt's text holds, decoded once; `undefined` when it holds no HTTP answer.
   * @throws what the codec threw (by default: the text is not JSON).
   */
  readonly readAnswer: (text: string) => DecodedAnswer | undefined;
}

/** `headers` with an object and value lists of their own. */
function copyHeaders(
  headers: Record<string, string | string[]>,
): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    copy[name] = typeof value === 'string' ? value : [...value];
  return copy;
}

/**
 * `decode` remembering the last text it decoded: most handlers answer every delivery alike (an
 * acknowledgement), so a replay usually reads the text the one before it read, and gets a copy of
 * that answer instead of parsing and checking it again. The copy is whole (its headers, each
 * header's list of values and its body's bytes): a preset's `replay`, a framework hook or a
 * middleware may change the answer it is handed, and the next replay must not see that.
 */
function rememberingLast(
  decode: (text: string) => DecodedAnswer | undefined,
): (text: string) => DecodedAnswer | undefined {
  let lastText: string | undefined;
  let last: DecodedAnswer | undefined;
  return (text) => {
    if (text !== lastText) {
      last = decode(text);
      lastText = text;
    }
    return (
      last && {
        status: last.status,
        headers: copyHeaders(last.headers),
        body: Buffer.from(last.body),
      }
    );
  };
}

/** The {@link AnswerCodec} of `guard`: straight JSON text under its default codec, else through its codec. */
export function answerCodec<Tx>(
  guard: IdempotencyGuard<Tx>,
  maxBytes: number,
  replayedHeader: string,
): AnswerCodec {
  // The marker is never stored: it is added to every replay.
  const except = replayedHeader.toLowerCase();
  if (guard.jsonCodec)
    return {
      storeAnswer: (response) => answerText(response, maxBytes, except),
      readAnswer: rememberingLast(answerOfText),
    };
  return {
    storeAnswer: (response) =>
      guard.encode(encodeResponse(response, { maxBytes, replayedHeader: except })),
    // The codec's value may be shared: the answer gets headers of its own.
    readAnswer: (text) => {
      const record = recordOf(guard.decode(text));
      return record && { ...record, headers: { ...record.headers } };
    },
  };
}
