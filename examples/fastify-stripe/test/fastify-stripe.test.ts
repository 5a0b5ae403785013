import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import pg from 'pg';
import * as signers from '@webhook-idempotency/providers/testing';
import { buildApp, connect, migrate } from '../src/app';

const secret = 'whsec_test_example_secret';
const stripe = signers.stripe({ secret });

const succeeded = (id: string, intent: string) => ({
  id,
  object: 'event',
  type: 'payment_intent.succeeded',
  data: {
    object: { id: intent, object: 'payment_intent', amount_received: 2500, currency: 'eur' },
  },
});

/** A fresh PostgreSQL database on the server jest's global setup started. */
async function pgUrl(): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.WI_PG_URL });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS example_fastify_stripe WITH (FORCE)');
  await admin.query('CREATE DATABASE example_fastify_stripe');
  await admin.end();
  const url = new URL(process.env.WI_PG_URL!);
  url.pathname = '/example_fastify_stripe';
  return url.toString();
}

describe.each([
  [
    'SQLite (no DATABASE_URL)',
    async () => ({ sqliteFile: join(mkdtempSync(join(tmpdir(), 'stripe-')), 'db.sqlite') }),
  ],
  ['PostgreSQL (DATABASE_URL)', async () => ({ databaseUrl: await pgUrl() })],
])('fastify-stripe example on %s', (_name, settings) => {
  let db: Knex;
  let app: FastifyInstance;

  beforeAll(async () => {
    const where = await settings();
    db = connect(where);
    await migrate(db);
    app = await buildApp(db, { signingSecret: secret, ...where });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await db.destroy();
  });

  const send = (delivery: signers.Delivery) => signers.send.inject(app, delivery);

  it('books a payment once however often Stripe delivers the event', async () => {
    const delivery = stripe.event(succeeded('evt_1', 'pi_1'));
    const first = await send(delivery);
    expect(first.statusCode).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ received: true });
    const results = await Promise.all(Array.from({ length: 10 }, () => send(delivery.retry())));
    for (const res of results) {
      expect([200, 409]).toContain(res.statusCode);
      if (res.statusCode === 200) expect(res.headers['idempotent-replayed']).toBe('true');
    }
    const payments = await db('payments').where({ payment_intent: 'pi_1' });
    expect(payments.map((row) => [Number(row.amount), row.currency, row.event_id])).toEqual([
      [2500, 'eur', 'evt_1'],
    ]);
  });

  it('acknowledges an event no route takes before any claim: 200, no receipt, nothing booked', async () => {
    const res = await send(stripe.event({ id: 'evt_other', type: 'customer.created', data: {} }));
    expect([res.statusCode, JSON.parse(res.body)]).toEqual([200, { received: true }]);
    expect(await db('webhook_receipts').where({ external_id: 'evt_other' })).toHaveLength(0);
    expect(await db('payments').where({ event_id: 'evt_other' })).toHaveLength(0);
  });

  it('refuses a forged signature before any claim', async () => {
    const res = await send(stripe.event(succeeded('evt_forged', 'pi_forged')).forged());
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).code).toBe('ERR_IDEMPOTENCY_SIGNATURE_INVALID');
    expect(await db('webhook_receipts').where({ external_id: 'evt_forged' })).toHaveLength(0);
  });

  it('refuses a reused event id with another payload (422) and books nothing', async () => {
    expect((await send(stripe.event(succeeded('evt_2', 'pi_2')))).statusCode).toBe(200);
    expect((await send(stripe.event(succeeded('evt_2', 'pi_other')))).statusCode).toBe(422);
    expect(await db('payments').where({ payment_intent: 'pi_other' })).toHaveLength(0);
  });
});
