/** @module A JSON content-type parser that keeps the exact request bytes on `request.rawBody`. */
import type { FastifyRequest } from 'fastify';

/**
 * Parses JSON like Fastify's own parser and keeps the bytes it parsed on `request.rawBody`, for
 * signatures and fingerprints. Add it inside the webhook routes' encapsulated context only:
 * `hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser)`.
 */
export function rawBodyJsonParser(
  request: FastifyRequest,
  body: string | Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  request.rawBody = body;
  if (body.length === 0) {
    done(null, undefined);
    return;
  }
  try {
    done(null, JSON.parse(body.toString()));
  } catch (error) {
    done(Object.assign(error as Error, { statusCode: 400 }), undefined);
  }
}
