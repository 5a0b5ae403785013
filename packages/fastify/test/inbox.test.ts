/**
 * `inbox(options)` on Fastify (issue 12): the shared inbox suite (packages/adapter-conformance),
 * as a route `preHandler` behind a raw-body JSON parser, on a listening server.
 */
import { runInboxConformance } from '@webhook-idempotency/adapter-conformance';
import Fastify from 'fastify';
import { type FastifyInboxOptions, inbox, rawBodyJsonParser } from '../src';

runInboxConformance({
  name: 'fastify 5',
  async start(options) {
    const app = Fastify();
    await app.register(async (hooks) => {
      hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
      hooks.post(
        '/webhooks/stripe',
        { preHandler: inbox(options as FastifyInboxOptions) },
        async () => ({ passed: true }),
      );
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { server: app.server, close: () => app.close() };
  },
});
