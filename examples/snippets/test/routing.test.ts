/** docs/routing.md: the route set's snippets, run through Express with signed Stripe deliveries. */
import { createHmac } from 'node:crypto';
import { InMemoryStore } from '@webhook-idempotency/core';
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';
import express from 'express';
import request from 'supertest';
import { booked, inboxRoute, shutdown, syncRoute, validatedRoute } from '../src/routing';

const SECRET = 'whsec_routing_snippets';
process.env.STRIPE_WEBHOOK_SECRET = SECRET;

function signed(app: express.Express, event: object) {
  const body = JSON.stringify(event);
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  return request(app)
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', `t=${t},v1=${v1}`)
    .send(body);
}

const paid = {
  id: 'evt_1',
  type: 'payment_intent.succeeded',
  data: { object: { id: 'pi_1', amount: 500 } },
};
const invoice = { id: 'evt_2', type: 'invoice.paid', data: { object: { id: 'in_1' } } };
const other = { id: 'evt_3', type: 'customer.created', data: { object: { id: 'cus_1' } } };

beforeEach(() => booked.splice(0));

it('routes each event to its handler once; an event no route takes is acknowledged with nothing stored', async () => {
  const store = new InMemoryStore();
  const app = express();
  syncRoute(app, store);
  for (const event of [paid, paid, invoice, other])
    expect((await signed(app, event)).status).toBe(200);
  expect(booked).toEqual(['payment pi_1 500', 'invoice in_1']);
  expect(
    await store.find({ provider: 'stripe', externalId: 'evt_3' }, { now: Date.now() }),
  ).toBeNull();
});

it("counts an ignored event in the store's ignored counts, written by the shutdown at the latest", async () => {
  const store = new InMemoryStore();
  const app = express();
  syncRoute(app, store);
  const server = app.listen(0, '127.0.0.1');
  for (const event of [other, { ...other, id: 'evt_5' }, paid])
    expect((await signed(server as unknown as express.Express, event)).status).toBe(200);
  await shutdown(server, store);
  expect(await store.ignoredCounts({ now: Date.now(), since: Date.now() - 3_600_000 })).toEqual([
    expect.objectContaining({ provider: 'stripe', type: 'customer.created', count: 2 }),
  ]);
});

it('in inbox mode, stores only routed events and the worker runs their routes', async () => {
  const deliveries = new InMemoryInbox();
  const app = express();
  const worker = inboxRoute(app, deliveries, new InMemoryStore());
  for (const event of [paid, other]) expect((await signed(app, event)).status).toBe(200);
  expect((await deliveries.list()).map((d) => d.externalId)).toEqual(['evt_1']);
  expect(await worker.runOnce()).toBe(1);
  expect(booked).toEqual(['payment pi_1 500']);
});

it("answers 422 with the schema's issues and stores nothing; a valid refund runs", async () => {
  const store = new InMemoryStore();
  const app = express();
  validatedRoute(app, store);
  const bad = { id: 'evt_4', type: 'charge.refunded', data: { object: { amount: -3 } } };
  const refused = await signed(app, bad);
  expect(refused.status).toBe(422);
  expect(refused.body.issues).toEqual([expect.stringMatching(/^data\.object\.amount: /)]);
  expect(
    await store.find({ provider: 'stripe', externalId: 'evt_4' }, { now: Date.now() }),
  ).toBeNull();
  const good = { id: 'evt_5', type: 'charge.refunded', data: { object: { amount: 300 } } };
  expect((await signed(app, good)).status).toBe(200);
  expect(booked).toEqual(['payment evt_5 -300']);
});
