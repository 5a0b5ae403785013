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
      // Form-encoded providers (Twilio, Braintree, Click): the Buffer is the body, kept raw.
      hooks.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'buffer' },
        (_request, body, done) => done(null, body),
      );
      const route = { preHandler: inbox(options as FastifyInboxOptions) };
      hooks.post('/hook', route, async () => ({ passed: true }));
      hooks.post('/hook/:operation', route, async () => ({ passed: true }));
      // A provider's verification GET (Meta's, Okta's) is the endpoint's to answer.
      hooks.get('/hook', route, async () => ({ passed: true }));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { server: app.server, close: () => app.close() };
  },
});
