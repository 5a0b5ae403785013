/** The `delivered` event over a real Fastify server: outcome and the answer's HTTP status. */
import { type GuardEvent, InMemoryStore } from '@webhook-idempotency/core';
import fastify from 'fastify';
import request from 'supertest';
import { fastifyIdempotency } from '../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/fastify';

type Delivered = Extract<GuardEvent, { type: 'delivered' }>;

it('first (201), replay, conflict (409), a thrown error and a hijacked 2xx, each with its status', async () => {
  const events: GuardEvent[] = [];
  let release: (() => void) | undefined;
  const app = fastify();
  await app.register(fastifyIdempotency, {
    store: new InMemoryStore(),
    provider: 'shop',
    key: (req) => req.headers['x-event-id'] as string | undefined,
    onEvent: (event) => void events.push(event),
  });
  app.post('/hook', async (req, reply) => {
    const mode = req.headers['x-mode'];
    if (mode === 'hold') await new Promise<void>((resolve) => (release = resolve));
    if (mode === 'fail') throw new Error('downstream');
    if (mode === 'hijack') {
      reply.hijack();
      reply.raw.writeHead(202).end('raw');
      return reply;
    }
    return reply.status(201).send({ created: true });
  });
  const { server, close } = await listen(app);
  const delivered = () => events.filter((e): e is Delivered => e.type === 'delivered');
  const post = (id: string, mode = '') =>
    request(server).post('/hook').set('x-event-id', id).set('x-mode', mode).send({ a: 1 });
  try {
    expect((await post('f1')).status).toBe(201);
    expect((await post('f1')).status).toBe(201);
    const held = post('f2', 'hold').then((r) => r);
    for (
      let i = 0;
      i < 100 && !events.some((e) => e.type === 'claimed' && e.key.externalId === 'f2');
      i++
    )
      await new Promise((r) => setTimeout(r, 5));
    expect((await post('f2')).status).toBe(409);
    release?.();
    expect((await held).status).toBe(201);
    expect((await post('f3', 'fail')).status).toBe(500);
    expect((await post('f4', 'hijack')).status).toBe(202);
    for (let i = 0; i < 100 && delivered().length < 6; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(delivered().map((e) => [e.key.externalId, e.outcome, e.status])).toEqual([
      ['f1', 'first', 201],
      ['f1', 'replay', 201],
      ['f2', 'conflict', 409],
      ['f2', 'first', 201],
      ['f3', 'failed', undefined], // thrown: Fastify's error handling answers, the engine reports no status
      ['f4', 'first', 202],
    ]);
    for (const event of delivered()) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  } finally {
    await close();
  }
});
