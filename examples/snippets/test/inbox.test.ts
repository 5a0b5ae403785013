/** docs/inbox.md: the endpoint, the worker with its SIGTERM wiring, ordering and retention, on PostgreSQL. */
import { createHmac } from 'node:crypto';
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { SqlInbox } from '@webhook-idempotency/sql';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import {
  backpressuredEndpoint,
  groupCommitInboxes,
  inboxApp,
  orderedEndpoint,
} from '../src/inbox-endpoint';
import {
  fastifyInboxApp,
  fetchInboxHandler,
  honoInboxApp,
  koaInboxApp,
} from '../src/inbox-frameworks';
import { deadSince, purgeOnce, startWorker } from '../src/inbox-worker';
import { pgDatabase } from './helpers/databases';

const SECRET = 'whsec_snippets_inbox';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const signed = (body: string) => {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
};
const paid = (id: string, invoice: string, customer = 'cus_1') =>
  JSON.stringify({ id, type: 'invoice.paid', data: { object: { id: invoice, customer } } });

let setup: pg.Pool;
beforeAll(async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_inbox');
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
  setup = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  await setup.query(
    "CREATE TABLE invoices (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false); INSERT INTO invoices (id) VALUES ('in_1')",
  );
});
afterAll(async () => {
  await setup.end();
  delete process.env.DATABASE_URL;
  delete process.env.STRIPE_WEBHOOK_SECRET;
});

it('the endpoint stores a delivery once and answers 200; the worker pays the invoice; SIGTERM stops it', async () => {
  const { app, pool } = await inboxApp();
  const body = paid('evt_1', 'in_1');
  const post = () =>
    request(app)
      .post('/webhooks/stripe')
      .set('content-type', 'application/json')
      .set('stripe-signature', signed(body))
      .send(body);
  const first = await post();
  const second = await post();
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(second.headers['idempotent-replayed']).toBe('true');

  const before = process.listeners('SIGTERM');
  const { worker } = startWorker();
  const onSigterm = process.listeners('SIGTERM').find((listener) => !before.includes(listener));
  try {
    const deliveries = new SqlInbox(pool);
    for (let i = 0; i < 200; i++) {
      if ((await deliveries.find('stripe', 'evt_1'))?.status === DeliveryStatus.DONE) break;
      await sleep(25);
    }
    expect((await deliveries.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);
    expect((await setup.query('SELECT paid FROM invoices')).rows).toEqual([{ paid: true }]);
    expect(worker.running).toBe(true);
    expect(onSigterm).toBeDefined();
    await (onSigterm as () => Promise<void>)();
    expect(worker.running).toBe(false);
    expect(await purgeOnce(pool)).toEqual([0, 0]);
  } finally {
    if (onSigterm) process.removeListener('SIGTERM', onSigterm);
    await worker.stop();
    await pool.end();
  }
});

it('the ordering example stores the customer as the ordering key and answers 202', async () => {
  const { app: _unused, pool } = await inboxApp();
  try {
    const deliveries = new SqlInbox(pool);
    const app = express();
    app.post('/hook', express.raw({ type: 'application/json' }), orderedEndpoint(deliveries));
    const body = paid('evt_2', 'in_2', 'cus_42');
    const response = await request(app)
      .post('/hook')
      .set('content-type', 'application/json')
      .set('stripe-signature', signed(body))
      .send(body);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ queued: true });
    expect((await deliveries.find('stripe', 'evt_2'))!.orderingKey).toBe('cus_42');
  } finally {
    await pool.end();
  }
});

it('the backpressure example stores under its budget and refuses nothing', async () => {
  const { pool } = await inboxApp();
  try {
    const deliveries = new SqlInbox(pool);
    const app = express();
    app.post('/hook', express.raw({ type: 'application/json' }), backpressuredEndpoint(deliveries));
    const body = paid('evt_budget', 'in_4');
    const response = await request(app)
      .post('/hook')
      .set('content-type', 'application/json')
      .set('stripe-signature', signed(body))
      .send(body);
    expect(response.status).toBe(200);
    expect(await deliveries.find('stripe', 'evt_budget')).not.toBeNull();
  } finally {
    await pool.end();
  }
});

it('the Fastify and Koa endpoints store a delivery once and answer 200', async () => {
  const { pool } = await inboxApp();
  const fastify = fastifyInboxApp(new SqlInbox(pool));
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const koa = koaInboxApp(new SqlInbox(pool)).listen(0, '127.0.0.1');
  try {
    for (const [server, id] of [
      [fastify.server, 'evt_fastify'],
      [koa, 'evt_koa'],
    ] as const) {
      const body = paid(id, 'in_3');
      const post = () =>
        request(server)
          .post('/webhooks/stripe')
          .set('content-type', 'application/json')
          .set('stripe-signature', signed(body))
          .send(body);
      const [first, second] = [await post(), await post()];
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect((await new SqlInbox(pool).find('stripe', id))!.body.toString('utf8')).toBe(body);
    }
  } finally {
    await fastify.close();
    await new Promise((resolve) => koa.close(resolve));
    await pool.end();
  }
});

it('the Hono and fetch endpoints store a delivery once and answer 200', async () => {
  const { pool } = await inboxApp();
  const hono = honoInboxApp(new SqlInbox(pool));
  const handler = fetchInboxHandler(new SqlInbox(pool));
  try {
    for (const [fetchLike, id] of [
      [(r: Request) => hono.fetch(r), 'evt_hono'],
      [handler, 'evt_fetch'],
    ] as const) {
      const body = paid(id, 'in_4');
      const post = () =>
        fetchLike(
          new Request('http://localhost/webhooks/stripe', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'stripe-signature': signed(body) },
            body,
          }),
        );
      const [first, second] = [await post(), await post()];
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect((await new SqlInbox(pool).find('stripe', id))!.body.toString('utf8')).toBe(body);
    }
  } finally {
    await pool.end();
  }
});

it('group commit: the observer hears each commit; turned off, each delivery commits alone', async () => {
  const { pool } = await inboxApp();
  const sizes: number[] = [];
  const { grouped, single } = groupCommitInboxes(pool, { record: (n) => sizes.push(n) });
  const delivery = (externalId: string) => ({
    provider: 'acme',
    externalId,
    orderingKey: null,
    headers: {},
    body: Buffer.from('{}'),
  });
  try {
    const stored = await Promise.all(
      Array.from({ length: 40 }, (_, i) => grouped.enqueue(delivery(`gc_${i}`))),
    );
    expect(stored.every(Boolean)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(await single.enqueue(delivery('gc_single'))).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
  } finally {
    await pool.end();
  }
});

it('the listing example pages the dead deliveries received since a time', async () => {
  const { pool } = await inboxApp();
  try {
    const deliveries = new SqlInbox(pool);
    for (const id of ['gh_1', 'gh_2', 'gh_3']) {
      if (id !== 'gh_1') await sleep(10); // received at three times of the database's clock
      await deliveries.enqueue({
        provider: 'github',
        externalId: id,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    }
    for (const d of await deliveries.lease({ providers: ['github'], limit: 3, leaseMs: 60_000 }))
      await deliveries.bury(d, { error: 'Error: poison' });
    const second = (await deliveries.find('github', 'gh_2'))!;
    const { page, next } = await deadSince(pool, second.receivedAt);
    expect(page.map((d) => [d.externalId, d.status])).toEqual([
      ['gh_2', 'dead'],
      ['gh_3', 'dead'],
    ]);
    expect(next).toEqual([]);
  } finally {
    await pool.end();
  }
});
