/**
 * `inbox(options)` on Express (issue 12), against a real SQLite file and a listening server: a
 * verified delivery is stored byte for byte and answered 200 at once; a duplicate is answered
 * without a second row; a bad signature is 401 with nothing stored; a store that is down is 503.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryStatus, providers } from '@webhook-idempotency/core';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { inbox } from '../src';

const SECRET = 'whsec_test_inbox';
const sign = (body: string, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
// Odd spacing and key order: a re-serialised body would not match these bytes.
const event = (id: string, customer = 'cus_1') =>
  `{ "id":"${id}",  "type":"invoice.paid", "data":{"object":{"customer":"${customer}"}} }`;

let db: Database.Database;
let deliveries: SqlInbox;
let errors: unknown[];

function app(options: Partial<Parameters<typeof inbox>[0]> = {}) {
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: '*/*' }),
    inbox({ inbox: deliveries, preset: providers.stripe({ secret: SECRET }), ...options }),
  );
  app.get('/webhooks/stripe', (_req, res) => res.send('a read'));
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    errors.push(error);
    res.status(500).send('error');
  };
  app.use(onError);
  return app;
}

beforeEach(async () => {
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'express-inbox-'));
  db = new Database(join(dir, 'inbox.db'));
  db.pragma('journal_mode = WAL');
  await InboxSchema.createTable(db);
  deliveries = new SqlInbox(db);
  errors = [];
});
afterEach(() => {
  if (db.open) db.close();
});

it('stores a verified delivery byte for byte with its allow-listed headers, and answers 200 at once', async () => {
  const body = event('evt_1');
  const response = await request(app())
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', sign(body))
    .set('authorization', 'Bearer secret-token')
    .set('cookie', 'session=abc')
    .set('user-agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)')
    .send(body);
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ received: true });
  expect(response.headers['idempotent-replayed']).toBeUndefined();
  const stored = await deliveries.find('stripe', 'evt_1');
  expect(stored!.status).toBe(DeliveryStatus.PENDING);
  expect(stored!.body.toString('utf8')).toBe(body);
  expect(Object.keys(stored!.headers).sort()).toEqual([
    'content-type',
    'stripe-signature',
    'user-agent',
  ]);
});

it('a duplicate is answered 200 with Idempotent-Replayed and stored once', async () => {
  const body = event('evt_dup');
  const server = app();
  const send = () =>
    request(server)
      .post('/webhooks/stripe')
      .set('content-type', 'application/json')
      .set('stripe-signature', sign(body))
      .send(body);
  const [first, second] = [await send(), await send()];
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(second.headers['idempotent-replayed']).toBe('true');
  expect(second.body).toEqual({ received: true });
  expect(await deliveries.list()).toHaveLength(1);
});

it('a bad signature is 401 and nothing is stored', async () => {
  const body = event('evt_forged');
  const response = await request(app())
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', sign(event('evt_other')))
    .send(body);
  expect(response.status).toBe(401);
  expect(response.body.code).toBe('ERR_IDEMPOTENCY_SIGNATURE_INVALID');
  expect(await deliveries.list()).toEqual([]);
});

it('a store that is down is 503 with Retry-After, and no driver message reaches the caller', async () => {
  const server = app();
  db.close();
  const body = event('evt_down');
  const response = await request(server)
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', sign(body))
    .send(body);
  expect(response.status).toBe(503);
  expect(response.headers['retry-after']).toBe('1');
  expect(response.body).toEqual({
    code: 'ERR_IDEMPOTENCY_STORE',
    message: 'The receipts store is unavailable; retry later',
  });
});

it('a delivery without an id is 400, nothing stored; a read passes through', async () => {
  const body = '{"type":"invoice.paid"}';
  const server = app();
  const response = await request(server)
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', sign(body))
    .send(body);
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('ERR_IDEMPOTENCY_KEY_MISSING');
  expect((await request(server).get('/webhooks/stripe')).text).toBe('a read');
  expect(await deliveries.list()).toEqual([]);
});

it('answers with the configured response and stores the ordering key the option derives', async () => {
  const server = app({
    response: { status: 202, body: 'queued', contentType: 'text/plain' },
    orderingKey: (_req, raw) => JSON.parse(raw.toString('utf8')).data.object.customer,
  });
  const body = event('evt_ordered', 'cus_42');
  const response = await request(server)
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', sign(body))
    .send(body);
  expect(response.status).toBe(202);
  expect(response.text).toBe('queued');
  expect(response.headers['content-type']).toMatch(/^text\/plain/);
  expect((await deliveries.find('stripe', 'evt_ordered'))!.orderingKey).toBe('cus_42');
});

it('without a raw-body parser the setup error goes to the error handler; nothing is stored', async () => {
  const server = express();
  server.post(
    '/hook',
    express.json(),
    inbox({ inbox: deliveries, provider: 'github', key: (req) => req.get('x-github-delivery') }),
  );
  server.use(((error, _req, res, _next) => {
    errors.push(error);
    res.status(500).send('error');
  }) as ErrorRequestHandler);
  const response = await request(server)
    .post('/hook')
    .set('x-github-delivery', 'd-1')
    .send({ action: 'opened' });
  expect(response.status).toBe(500);
  expect(errors).toEqual([expect.objectContaining({ code: 'ERR_IDEMPOTENCY_RAW_BODY_MISSING' })]);
  expect(await deliveries.list()).toEqual([]);
});

it('refuses, at construction, options that would store credentials or are unknown', () => {
  expect(() =>
    inbox({
      inbox: deliveries,
      preset: providers.stripe({ secret: SECRET }),
      headers: ['Authorization'],
    }),
  ).toThrow(expect.objectContaining({ option: 'headers' }));
  expect(() =>
    inbox({ inbox: deliveries, preset: providers.stripe({ secret: SECRET }), store: {} } as never),
  ).toThrow(expect.objectContaining({ option: 'store' }));
  expect(() =>
    inbox({
      inbox: deliveries,
      preset: providers.stripe({ secret: SECRET }),
      response: { status: 302 },
    }),
  ).toThrow(expect.objectContaining({ option: 'response' }));
  expect(() => inbox({} as never)).toThrow(expect.objectContaining({ option: 'inbox' }));
});
