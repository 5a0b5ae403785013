/**
 * Regression: a route that answers around the plugin (`reply.hijack()` + `reply.raw`) never
 * reaches onSend. The claim used to stay `processing` until stale (every retry a 409, then a
 * second run anyway), and the guard's run never settled (in transactional mode: a transaction
 * left open). Issue 4 marked the receipt failed; issue 8 (item 2): when the raw answer that went
 * out is a 2xx, the provider has seen success, so the run is recorded as completed with that
 * status and an empty body (a retry is replayed, the handler does not run twice); a non-2xx raw
 * answer marks the receipt failed with ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED.
 */
import { IdempotencyGuard, InMemoryStore, type GuardEvent } from '@webhook-idempotency/core';
import fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import fastify4 from 'fastify4';
import request from 'supertest';
import { fastifyIdempotency, rawBodyJsonParser } from '../../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/fastify';

describe.each<[string, () => FastifyInstance]>([
  ['fastify 5', () => fastify()],
  ['fastify 4', () => fastify4() as unknown as FastifyInstance],
])('a hijacked reply (%s)', (_name, framework) => {
  it.each([
    [200, 'completed'],
    [500, 'failed'],
  ])('a raw %i leaves the receipt %s, not processing', async (status, outcome) => {
    const events: GuardEvent[] = [];
    let settled!: () => void;
    const settledOnce = new Promise<void>((resolve) => (settled = resolve));
    const guard = new IdempotencyGuard(new InMemoryStore(), {
      onEvent(event) {
        events.push(event);
        if (event.type === 'failed' || event.type === 'completed') settled();
      },
    });
    let calls = 0;
    const app = framework();
    await app.register(async (hooks) => {
      hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
      await hooks.register(fastifyIdempotency, {
        guard,
        provider: 'p',
        key: (req: FastifyRequest) => req.headers['x-event-id'] as string,
      });
      hooks.post('/hook', async (_request, reply) => {
        calls++;
        reply.hijack();
        reply.raw.writeHead(status, { 'content-type': 'text/plain' });
        reply.raw.end(`raw ${calls}`);
      });
    });
    const { server, close } = await listen(app);
    try {
      const post = () =>
        request(server)
          .post('/hook')
          .set('content-type', 'application/json')
          .set('x-event-id', 'h1')
          .send('{"a":1}');
      expect((await post()).text).toBe('raw 1');
      await settledOnce;
      const receipt = await guard.find({ provider: 'p', externalId: 'h1' });
      expect(receipt).toMatchObject({ status: outcome, attempts: 1 });
      const again = await post();
      if (outcome === 'failed') {
        expect(receipt?.error).toMatch(/ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED/i);
        expect(again.status).toBe(500);
        expect(again.text).toBe('raw 2');
        expect(calls).toBe(2);
      } else {
        // Only the status is known of an answer sent around the plugin: the replay has no body.
        expect(again.status).toBe(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.text ?? '').toBe('');
        expect(calls).toBe(1);
      }
    } finally {
      await close();
    }
  });
});
