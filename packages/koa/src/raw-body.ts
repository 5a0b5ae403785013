/** @module `rawBodyParser()`: keeps the exact request bytes on `ctx.request.rawBody` and parses JSON into `ctx.request.body`. */
import { ConfigError } from '@webhook-idempotency/core';
import {
  discardRest,
  REQUEST_TOO_LARGE,
  readNodeBody,
  resolveMaxRequestBytes,
} from '@webhook-idempotency/core/adapter';
import type { Context, Middleware, Next } from 'koa';
import type { RawBodyParserOptions } from './types';

/** What the middleware reads and writes on `ctx.request` (koa's own types declare neither). */
type BodyRequest = { rawBody?: unknown; body?: unknown };

/**
 * Reads the request body into a Buffer on `ctx.request.rawBody`, the exact bytes `idempotent()`
 * verifies signatures and fingerprints over. A JSON body (`application/json`, `application/*+json`)
 * is also parsed into `ctx.request.body`; any other body is put there as the same Buffer, and an
 * empty one leaves it `undefined`. Bytes are kept as sent: no `Content-Encoding` is undone (such a
 * request is answered 415). A body over `maxRequestBytes` (default 1 MiB) is answered 413 as soon
 * as the limit is passed (or at once when `Content-Length` announces it), and malformed JSON 400, through
 * Koa's error handling (`ctx.throw`), before the guard runs; the rest of a refused body is read off
 * and discarded for at most 16 MiB, a pause of 1 s or 10 s in all, then the connection is closed, so a client
 * that goes on writing costs the server a bounded read. Does nothing when an earlier body
 * parser already set `ctx.request.body` or `ctx.request.rawBody`.
 * @throws {ConfigError} at construction, for a `maxRequestBytes` that is not a whole number of
 * bytes (or both it and its deprecated alias `limit`).
 * @example
 * router.post('/webhooks/stripe', rawBodyParser({ maxRequestBytes: 256 * 1024 }),
 *   idempotent({ store, preset: providers.stripe({ secret }) }),
 *   (ctx) => { ctx.body = { received: (ctx.request.body as { id: string }).id }; });
 * @see docs/guides/raw-body.md
 */
export function rawBodyParser(options: RawBodyParserOptions = {}): Middleware {
  const limit = resolveLimit(options ?? {});
  const tooLarge = `Request body larger than the limit of ${limit} bytes`;
  return async function rawBody(ctx: Context, next: Next): Promise<void> {
    const request = ctx.request as BodyRequest;
    if (request.rawBody !== undefined || request.body !== undefined || ctx.req.readableEnded)
      return next();
    const encoding = ctx.get('content-encoding').toLowerCase();
    if (encoding !== '' && encoding !== 'identity')
      ctx.throw(415, `Unsupported Content-Encoding "${encoding}": send the body uncompressed`);
    if (Number(ctx.get('content-length')) > limit) {
      discardRest(ctx.req, ctx.res);
      ctx.throw(413, tooLarge);
    }
    let bytes: Buffer | typeof REQUEST_TOO_LARGE;
    try {
      bytes = await readNodeBody(ctx.req, ctx.res, limit);
    } catch (error) {
      return ctx.throw(400, `The request body could not be read: ${(error as Error).message}`);
    }
    if (bytes === REQUEST_TOO_LARGE) ctx.throw(413, tooLarge);
    request.rawBody = bytes;
    if (bytes.length > 0)
      request.body = ctx.request.is('application/json', 'application/*+json')
        ? parseJson(ctx, bytes)
        : bytes;
    return next();
  };
}

/** `maxRequestBytes`, or its deprecated alias `limit` (named in the error when it is the one given). */
function resolveLimit(options: RawBodyParserOptions): number {
  const { maxRequestBytes, limit } = options;
  if (limit === undefined) return resolveMaxRequestBytes(maxRequestBytes);
  if (maxRequestBytes !== undefined)
    throw new ConfigError(
      'limit',
      'is the deprecated name of maxRequestBytes: give only maxRequestBytes',
    );
  return resolveMaxRequestBytes(limit, 'limit');
}

function parseJson(ctx: Context, bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return ctx.throw(400, `Invalid JSON in the request body: ${(error as Error).message}`);
  }
}
