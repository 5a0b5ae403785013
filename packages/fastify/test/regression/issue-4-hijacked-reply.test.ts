/**
 * Regression: a route that answers around the plugin (`reply.hijack()` + `reply.raw`) never
 * reaches onSend. The claim used to stay `processing` until stale (every retry a 409, then a
 * second run anyway), and the guard's run never settled (in transactional mode: a transaction
 * left open). The receipt is now marked failed with ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED once the
 * raw response has finished.
 */
import { IdempotencyGuard, InMemoryStore, type GuardEvent } from '@webhook-idempotency/core';
import fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import fastify4 from 'fastify4';
import request from 'supertest';
import { idempotency, rawBodyJsonParser } from '../../src';
import { listen } from '../helpers/apps';

describe.each<[string, () => FastifyInstance]>([
  ['fastify 5', () => fastify()],
  ['fastify 4', () => fastify4() as unknown as FastifyInstance],
])('a hijacked reply (%s)', (_name, framework) => {
  it('leaves the receipt failed with a clear error, not processing, and the next delivery runs again', async () => {
    const events: GuardEvent[] = [];
    let failed!: () => void;
    const failedOnce = new Promise<void>((resolve) => (failed = resolve));
    const guard = new IdempotencyGuard(new InMemoryStore(), {
      onEvent(event) {
        events.push(event);
        if (event.type === 'failed') failed();
      },
    });
    let calls = 0;
    const app = framework();
    await app.register(async (hooks) => {
      hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
      await hooks.register(idempotency, { guard, provider: 'p', key: (req: FastifyRequest) => req.headers['x-event-id'] as string });
      hooks.post('/hook', async (_request, reply) => {
        calls++;
        reply.hijack();
        reply.raw.writeHead(200, { 'content-type': 'text/plain' });
        reply.raw.end(`raw ${calls}`);
      });
    });
    const { server, close } = await listen(app);
    try {
      const post = () => request(server).post('/hook').set('content-type', 'application/json').set('x-event-id', 'h1').send('{"a":1}');
      expect((await post()).text).toBe('raw 1');
      await failedOnce;
      const receipt = await guard.find({ provider: 'p', externalId: 'h1' });
      expect(receipt).toMatchObject({ status: 'failed', attempts: 1 });
      expect(receipt?.error).toMatch(/ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED/i);
      const again = await post();
      expect(again.status).toBe(200);
      expect(again.text).toBe('raw 2');
      expect(calls).toBe(2);
    } finally {
      await close();
    }
  });
});
