/**
 * An app that closes writes its route sets' ignored-event counts: the plugin's `onClose` hook
 * flushes the tally of every store it guards with, so a graceful shutdown loses none of the last
 * few seconds' counts (without it they wait for the tally's next write, which an exit never sees).
 */
import { InMemoryStore } from '@webhook-idempotency/core';
import type { HttpRequest } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import fastify from 'fastify';
import { fastifyIdempotency } from '../../src';

/** A preset naming its events from a header (no signature: the route set is what is tested). */
const acme = {
  provider: 'acme',
  needsRawBody: false,
  retentionDays: 7,
  key: (request: HttpRequest) => request.headers['x-event-id'] as string,
  eventType: (request: HttpRequest) => request.headers['x-event-type'] as string | undefined,
};

it('app.close() writes the ignored counts of the stores its routes guard with', async () => {
  const shared = new InMemoryStore();
  const own = new InMemoryStore();
  const ran: string[] = [];
  const app = fastify();
  await app.register(fastifyIdempotency, {
    store: shared,
    preset: routes(acme, { 'order.paid': () => void ran.push('paid') }),
  });
  app.post('/hook', async () => ({ ok: true }));
  app.post('/other', { config: { idempotency: { store: own } } }, async () => ({ ok: true }));
  const post = (url: string, id: string, type: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'x-event-id': id, 'x-event-type': type, 'content-type': 'application/json' },
      payload: '{}',
    });
  expect((await post('/hook', 'e1', 'order.created')).statusCode).toBe(200);
  expect((await post('/hook', 'e2', 'order.created')).statusCode).toBe(200);
  expect((await post('/other', 'e3', 'order.refunded')).statusCode).toBe(200);
  expect((await post('/hook', 'e4', 'order.paid')).statusCode).toBe(200);
  expect(ran).toEqual(['paid']);
  expect(await shared.find({ provider: 'acme', externalId: 'e1' }, { now: Date.now() })).toBeNull();
  // Not written yet: the tally writes every few seconds.
  expect(await shared.ignoredCounts({ now: Date.now(), since: 0 })).toEqual([]);

  await app.close();
  expect(await shared.ignoredCounts({ now: Date.now(), since: 0 })).toEqual([
    expect.objectContaining({ provider: 'acme', type: 'order.created', count: 2 }),
  ]);
  expect(await own.ignoredCounts({ now: Date.now(), since: 0 })).toEqual([
    expect.objectContaining({ provider: 'acme', type: 'order.refunded', count: 1 }),
  ]);
});
