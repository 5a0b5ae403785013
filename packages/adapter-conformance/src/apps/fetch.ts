/**
 * @module `@webhook-idempotency/adapter-conformance/apps/fetch`: the fetch adapter's registry
 * entry of the adapter conformance suite (withIdempotency behind a node:http ↔ fetch server), and
 * that server, `fetchServer`, for the tests that serve a fetch handler of their own.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { type FetchIdempotencyOptions, withIdempotency } from '@webhook-idempotency/fetch';
import { running } from '../server';
import type { AdapterEntry, Answer, NativeLike } from '../types';
import { fetchServer } from './fetch-server';

export { fetchServer, type NodeFetchHandler } from './fetch-server';

/** Node-style lower-cased headers of a fetch `Headers`. */
export const nodeHeaders = (headers: Headers): IncomingHttpHeaders => Object.fromEntries(headers);

/** Renders a neutral answer as a `Response`. */
export function render(answer: Answer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers ?? {}))
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item);
  const init = { status: answer.status ?? 200, headers };
  switch (answer.kind) {
    case 'json':
      headers.set('content-type', 'application/json; charset=utf-8');
      return new Response(JSON.stringify(answer.value), init);
    case 'text':
    case 'buffer':
      return new Response(answer.value, init);
    case 'stream':
      return new Response(
        Readable.toWeb(Readable.from(answer.chunks.map((c) => Buffer.from(c)))) as ReadableStream,
        init,
      );
    case 'empty':
      return new Response(null, init);
    default:
      throw new Error(`a fetch handler cannot answer with ${answer.kind}`);
  }
}

/** withIdempotency guarding POST /hook, served by node:http through Request/Response. */
export const fetchApp: AdapterEntry = {
  name: 'fetch (node:http ↔ Request/Response)',
  capabilities: { writeAndEnd: false, streamBody: true, socket: true },
  nativeLike: (request: Request): NativeLike => ({ headers: nodeHeaders(request.headers) }),
  async start(options, handler, observe) {
    const guarded = withIdempotency(
      options as unknown as FetchIdempotencyOptions,
      async (request, idempotency, incoming: IncomingMessage, seen: { value: unknown }) => {
        seen.value = idempotency;
        return render(
          await handler({
            headers: nodeHeaders(request.headers),
            idempotency,
            socket: incoming.socket,
          }),
        );
      },
    );
    const server = fetchServer(async (request, incoming) => {
      const seen: { value: unknown } = { value: undefined };
      try {
        return await guarded(request, incoming, seen);
      } finally {
        observe({ headers: incoming.headers, idempotency: seen.value });
      }
    });
    return running(server.listen(0, '127.0.0.1'));
  },
};
