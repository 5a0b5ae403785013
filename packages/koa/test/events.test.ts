/** The `delivered` event over a real Koa server: outcome and the answer's HTTP status. */
import { type GuardEvent, InMemoryStore } from '@webhook-idempotency/core';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import request from 'supertest';
import { idempotent } from '../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/koa';

type Delivered = Extract<GuardEvent, { type: 'delivered' }>;

it('first (201), replay, a non-2xx answer (503) and a reused id with another body (422), each with its status', async () => {
  const events: GuardEvent[] = [];
  const koa = new Koa();
  koa.use(bodyParser());
  koa.use(
    idempotent({
      store: new InMemoryStore(),
      provider: 'bot',
      key: (ctx) => ctx.get('x-event-id') || undefined,
      onEvent: (event) => void events.push(event),
    }),
  );
  koa.use((ctx) => {
    if (ctx.get('x-mode') === 'busy') {
      ctx.status = 503;
      ctx.body = { busy: true };
      return;
    }
    ctx.status = 201;
    ctx.body = { ok: true };
  });
  const running = await listen(koa);
  const delivered = () => events.filter((e): e is Delivered => e.type === 'delivered');
  const post = (id: string, body: object, mode = '') =>
    request(running.server).post('/').set('x-event-id', id).set('x-mode', mode).send(body);
  try {
    expect((await post('k1', { a: 1 })).status).toBe(201);
    expect((await post('k1', { a: 1 })).status).toBe(201);
    expect((await post('k2', { a: 1 }, 'busy')).status).toBe(503);
    expect((await post('k1', { a: 2 })).status).toBe(422);
    for (let i = 0; i < 100 && delivered().length < 4; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(delivered().map((e) => [e.key.externalId, e.outcome, e.status])).toEqual([
      ['k1', 'first', 201],
      ['k1', 'replay', 201],
      ['k2', 'failed', 503],
      ['k1', 'mismatch', 422],
    ]);
    expect(delivered()[0]!.handlerMs).toBeGreaterThanOrEqual(0);
    expect(delivered()[1]!.handlerMs).toBeUndefined();
  } finally {
    await running.close();
  }
});
