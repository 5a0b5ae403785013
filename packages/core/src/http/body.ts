/** @module Body helpers for adapters: raw request bytes in, response payloads to bytes out. */

/**
 * The raw request bytes from what a framework or body parser kept: a Buffer as is, a string as
 * its UTF-8 bytes (koa-bodyparser's `rawBody`), anything else `undefined`.
 */
export function toRawBody(value: unknown): Buffer | undefined {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  return undefined;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

function chunkBytes(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array)
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError(
    `a response stream produced a ${chunk === null ? 'null' : typeof chunk} chunk; only bytes and strings can be stored`,
  );
}

/**
 * True for payloads {@link collectBody} must read (streams, Blobs); false for bytes, strings and
 * `null`/`undefined`, which a framework can send again as they are.
 */
export function needsCollecting(payload: unknown): boolean {
  return payload !== null && typeof payload === 'object' && !(payload instanceof Uint8Array);
}

/**
 * The bytes of a response payload as a framework holds it after serialisation: `null` or
 * `undefined` (no body), a string (UTF-8), a Buffer or Uint8Array, a Node or web stream (read to
 * the end) or a Blob. The adapter then sends the returned Buffer instead of the consumed stream.
 * @throws {TypeError} for any other value (an object a framework has not serialised yet).
 */
export async function collectBody(payload: unknown): Promise<Buffer> {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string' || payload instanceof Uint8Array) return chunkBytes(payload);
  if (typeof Blob !== 'undefined' && payload instanceof Blob)
    return Buffer.from(await payload.arrayBuffer());
  if (isAsyncIterable(payload)) {
    const chunks: Buffer[] = [];
    for await (const chunk of payload) chunks.push(chunkBytes(chunk));
    return Buffer.concat(chunks);
  }
  throw new TypeError(
    `cannot read a response body of type ${typeof payload}; send a string, Buffer or stream`,
  );
}
