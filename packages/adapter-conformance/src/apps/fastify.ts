/**
 * @module `@webhook-idempotency/adapter-conformance/apps/fastify`: the Fastify registry entries
 * of the adapter conformance suite (Fastify 5 and Fastify 4), and the `render`/`listen` helpers the
 * Fastify package's own tests build their apps with.
 */
import { Readable } from 'node:stream';
import type { IdempotencyOptions } from '@webhook-idempotency/core';
import { fastifyIdempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
import fastify5, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastify4 from 'fastify4';
import type { AdapterEntry, Answer, Handler, NativeLike, Observer, RunningApp } from '../types';

/** Renders a neutral answer the Fastify way (`reply.send` of an object, string, Buffer, stream or nothing). */
export function render(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status ?? 200);
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
  switch (answer.kind) {
    case 'json':
    case 'text':
    case 'buffer':
      return reply.send(answer.value);
    case 'stream':
      return reply.send(Readable.from(answer.chunks));
    case 'empty':
      return reply.send();
    default:
      throw new Error(`fastify cannot answer with ${answer.kind}`);
  }
}

/** Starts `app` on a free loopback port. */
export async function listen(app: FastifyInstance): Promise<RunningApp> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { server: app.server, close: () => app.close() };
}

type Factory = () => FastifyInstance;

function entry(name: string, framework: Factory): AdapterEntry {
  return {
    name,
    capabilities: { writeAndEnd: false, streamBody: true, socket: true },
    async start(options: IdempotencyOptions<NativeLike>, handler: Handler, observe: Observer) {
      const app = framework();
      app.addHook('onResponse', async (request) =>
        observe({ headers: request.headers, idempotency: request.idempotency }),
      );
      await app.register(async (hooks) => {
        hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
        // Form-encoded providers (Twilio, Braintree): the Buffer is the body, the presets read it.
        hooks.addContentTypeParser(
          'application/x-www-form-urlencoded',
          { parseAs: 'buffer' },
          (_request, body, done) => done(null, body),
        );
        await hooks.register(fastifyIdempotency, options);
        const route = async (request: FastifyRequest, reply: FastifyReply) => {
          const answer = await handler({
            headers: request.headers,
            idempotency: request.idempotency,
            socket: request.raw.socket,
          });
          return render(reply, answer);
        };
        hooks.post('/hook', route);
        // /hook/<operation>: a provider whose operation is the last path segment (Uzum Bank).
        hooks.post('/hook/:operation', route);
        hooks.get('/hook', route);
      });
      return listen(app);
    },
  };
}

/** Fastify 5 and Fastify 4, the majors the peer range declares (Fastify 4 with a sample of the presets). */
export const fastifyApps: readonly AdapterEntry[] = [
  entry('fastify 5', () => fastify5()),
  { ...entry('fastify 4', () => fastify4() as unknown as FastifyInstance), presets: 'sample' },
];
