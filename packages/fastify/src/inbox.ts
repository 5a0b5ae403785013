/** @module `inbox(options)`: the Fastify inbox endpoint, a route preHandler. Translates in, calls the inbox engine, translates out. */
import type { InboxOptions } from '@webhook-idempotency/core/inbox';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import { decisionPreHandler } from './hooks';

/** Options of {@link inbox}: the inbox options of every adapter, with Fastify's `request` in the callbacks. */
export type FastifyInboxOptions = InboxOptions<FastifyRequest>;

/**
 * Inbox mode (docs/inbox.md) as a route `preHandler`: verifies the signature, stores the
 * delivery's exact bytes and answers 2xx at once; `createInboxWorker` processes it later, exactly
 * once. 401 for a bad signature (nothing stored), 503 when the store is down, 2xx again for a
 * duplicate (stored once). The route's handler only sees requests the inbox does not store
 * (`onMissingKey: 'passthrough'`, a preset's pass-through). Needs the raw bytes: register the
 * route where a raw-body content-type parser runs (`rawBodyJsonParser`).
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * app.post('/webhooks/stripe', { preHandler: inbox({ inbox: new SqlInbox(pool), preset }) },
 *   async () => ({ passed: true }));
 * @see docs/inbox.md
 */
export function inbox(options: FastifyInboxOptions): preHandlerHookHandler {
  const engine = createInboxEngine(options);
  return decisionPreHandler(
    (request) => engine.accept(request),
    (decision, _request, reply, done) => {
      if (decision.action === 'pass') return done();
      const { status, headers, body } = decision.response;
      // A refused header or status goes to Fastify's error handling, never unhandled.
      try {
        reply.code(status);
        for (const [name, value] of Object.entries(headers)) reply.header(name, value);
        reply.send(body);
      } catch (error) {
        done(error as Error);
      }
    },
  );
}
