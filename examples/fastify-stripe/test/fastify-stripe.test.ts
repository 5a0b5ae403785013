import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import pg from 'pg';
import Stripe from 'stripe';
import request from 'supertest';
import { buildApp, connect, migrate } from '../src/app';

const secret = 'whsec_test_example_secret';
const stripe = new Stripe('sk_test_unused');

function signed(event: object): { body: string; signature: string } {
  const body = JSON.stringify(event);
  return { body, signature: stripe.webhooks.generateTestHeaderString({ payload: body, secret }) };
}

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

  const deliver = (event: object, signature?: string) => {
    const { body, signature: good } = signed(event);
    return request(app.server)
      .post('/webhooks/stripe')
      .set('content-type', 'application/json')
      .set('stripe-signature', signature ?? good)
      .send(body);
  };

  it('books a payment once however often Stripe delivers the event', async () => {
    const event = succeeded('evt_1', 'pi_1');
    const first = await deliver(event).expect(200);
    expect(first.body).toEqual({ received: true });
    const results = await Promise.all(Array.from({ length: 10 }, () => deliver(event)));
    for (const res of results) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 200) expect(res.headers['idempotent-replayed']).toBe('true');
    }
    expect(await db('payments').where({ payment_intent: 'pi_1' })).toHaveLength(1);
  });

  it('refuses a forged signature before any claim', async () => {
    const res = await deliver(succeeded('evt_forged', 'pi_forged'), 't=1,v1=deadbeef').expect(401);
    expect(res.body.code).toBe('ERR_IDEMPOTENCY_SIGNATURE_INVALID');
    expect(await db('webhook_receipts').where({ external_id: 'evt_forged' })).toHaveLength(0);
  });

  it('refuses a reused event id with another payload (422) and books nothing', async () => {
    await deliver(succeeded('evt_2', 'pi_2')).expect(200);
    await deliver(succeeded('evt_2', 'pi_other')).expect(422);
    expect(await db('payments').where({ payment_intent: 'pi_other' })).toHaveLength(0);
  });
});
