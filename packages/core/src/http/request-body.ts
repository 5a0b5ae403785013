/**
 * @module Reading a Web-standard request body under a byte limit (the fetch and Hono adapters):
 * the bytes are counted as they arrive, so memory stays bounded whatever `Content-Length` says.
 */
import { ConfigError } from '../errors';
import { DEFAULT_MAX_REQUEST_BYTES } from './constants';
import type { HttpResponseRecord } from './types';

/** What {@link readRequestBody} returns for a body past the limit. */
export const REQUEST_TOO_LARGE: unique symbol = Symbol('request body too large');

const ignore = (): undefined => undefined;

/**
 * The `maxRequestBytes` option, checked: `undefined` is the default (1 MiB), anything but a whole
 * number of bytes, 0 or more, throws.
 * @throws {ConfigError} naming `option`.
 */
export function resolveMaxRequestBytes(value: unknown, option = 'maxRequestBytes'): number {
  if (value === undefined) return DEFAULT_MAX_REQUEST_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ConfigError(
      option,
      `must be a whole number of bytes, 0 or more, got ${String(value)}`,
    );
  return value;
}

/**
 * Reads `stream` to its end, or stops once more than `limit` bytes came: the reader is cancelled
 * and no further chunk is kept (at most `limit` bytes plus one chunk are held). `over` says which.
 */
export async function readStreamUpTo(
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
 * The exact bytes of `request`'s body, read from a clone so that `request` stays unread for the
 * handler: empty for a request without a body, `undefined` when something already read it, and
 * {@link REQUEST_TOO_LARGE} when `Content-Length` announces more than `limit` bytes (nothing is
 * read) or the body grows past `limit` while it is read (the clone is cancelled there; the
 * request's own stream is left paused, not cancelled, so that the server can still send the 413
 * on the connection before it drains or closes it).
 */
export async function readRequestBody(
  request: Request,
  limit: number,
): Promise<Buffer | undefined | typeof REQUEST_TOO_LARGE> {
  if (request.body === null) return Buffer.alloc(0);
  if (request.bodyUsed) return undefined;
  if (Number(request.headers.get('content-length')) > limit) return REQUEST_TOO_LARGE;
  const clone = request.clone().body as ReadableStream<Uint8Array>;
  const { bytes, over } = await readStreamUpTo(clone, limit);
  return over ? REQUEST_TOO_LARGE : bytes;
}

/** The `413` answer to a request body past `limit` bytes (never stored). */
export function requestTooLarge(limit: number): HttpResponseRecord {
  return {
    status: 413,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: Buffer.from(`Request body larger than the limit of ${limit} bytes`),
  };
}
