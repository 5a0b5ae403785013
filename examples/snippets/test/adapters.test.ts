/** docs/adapters/*.md and the adapter READMEs: every example app, driven over HTTP. */
import { createHmac } from 'node:crypto';
import { InMemoryStore } from '@webhook-idempotency/core';
import request from 'supertest';
import * as expressSnippets from '../src/express';
import * as fastifySnippets from '../src/fastify';
import * as koaSnippets from '../src/koa';
import { sqliteFile } from './helpers/databases';

const DELIVERY = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const github = (app: Parameters<typeof request>[0], body = '{"action":"opened"}') =>
  request(app)
    .post('/webhooks/github')
    .set('content-type', 'application/json')
    .set('x-github-delivery', DELIVERY)
    .send(body);
const payment = (app: Parameters<typeof request>[0], id = 'evt_1') =>
  request(app)
    .post('/webhooks/payments')
    .set('content-type', 'application/json')
    .send({ id, data: { object: { id: 'pi_1', amount: 500 } } });
/** A payment event whose amount is text: the snippets' schema refuses it before any claim. */
const notAPayment = (app: Parameters<typeof request>[0]) =>
  request(app)
    .post('/webhooks/payments')
    .set('content-type', 'application/json')
    .send({ id: 'evt_2', data: { object: { id: 'pi_2', amount: 'five' } } })
    .expect(400);
const receipts = (db: { prepare(sql: string): { get(): unknown } }) =>
  db.prepare('SELECT count(*) AS n FROM webhook_receipts').get();

type Running = { server: Parameters<typeof request>[0]; close(): Promise<void> };

describe('the minimal examples', () => {
  it.each<[string, () => Promise<Running>]>([
    [
      'express',
      async () => ({ server: expressSnippets.minimalApp(), close: async () => undefined }),
    ],
    [
      'koa',
      async () => ({ server: koaSnippets.minimalApp().callback(), close: async () => undefined }),
    ],
    [
      'fastify',
      async () => {
        const app = fastifySnippets.minimalApp();
        await app.ready();
        return { server: app.server, close: () => app.close() };
      },
    ],
  ])(
    '%s: first delivery, replay, 400 naming the missing header, 422 for another body',
    async (_name, make) => {
      const { server, close } = await make();
      try {
        const first = await github(server).expect(200);
        expect(first.body).toMatchObject({ attempts: 1 });
        const retry = await github(server).expect(200);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(retry.text).toBe(first.text);
        const missing = await request(server)
          .post('/webhooks/github')
          .set('content-type', 'application/json')
          .send('{}')
          .expect(400);
        expect(missing.body.message).toMatch(/X-GitHub-Delivery header/);
        await github(server, '{"action":"closed"}').expect(422);
      } finally {
        await close();
      }
    },
  );
});

describe('express', () => {
  it('json + saveRawBody keeps the bytes: the fingerprint sees a one-space difference', async () => {
    const app = expressSnippets.jsonVerifyApp(new InMemoryStore());
    await github(app, '{"action":"opened"}').expect(200, { received: 'opened' });
    await github(app, '{"action":"opened"}').expect(200).expect('idempotent-replayed', 'true');
    await github(app, '{"action": "opened"}').expect(422);
  });

  it('the transaction: one payment row however often the event arrives; a body that is not a payment gets 400 and claims nothing', async () => {
    const { app, db } = await expressSnippets.transactionApp(sqliteFile('express-tx'));
    try {
      await payment(app).expect(200, { received: true });
      await payment(app).expect(200).expect('idempotent-replayed', 'true');
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      const refused = await notAPayment(app);
      expect(refused.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_KEY_MISSING' });
      expect(refused.body.message).toMatch(/payment event \(id, data\.object\.id/);
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      expect(receipts(db)).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it('app.use with a provider per path: each provider its own receipts; /health unguarded', async () => {
    const store = new InMemoryStore();
    const app = expressSnippets.perRouteApp(store);
    const send = (provider: string) =>
      request(app)
        .post(`/webhooks/${provider}`)
        .set('content-type', 'application/json')
        .set('webhook-id', 'msg_1')
        .send('{"a":1}');
    await send('stripe').expect(200, { provider: 'stripe', bytes: 7 });
    await send('stripe').expect(200).expect('idempotent-replayed', 'true');
    const other = await send('shop-a').expect(200, { provider: 'shop-a', bytes: 7 });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    await request(app).get('/health').expect(200, 'ok');
    expect(store.size).toBe(2);
  });
});

describe('fastify', () => {
  it('per route: opted out, own key, opt-in with global: false', async () => {
    const store = new InMemoryStore();
    const app = await fastifySnippets.perRouteApp(store);
    try {
      const post = (url: string, headers: Record<string, string> = {}, payload = { id: 'evt_1' }) =>
        app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', ...headers },
          payload,
        });
      expect((await post('/webhooks/github')).statusCode).toBe(400); // no delivery header
      expect((await post('/webhooks/github', { 'x-github-delivery': 'd1' })).statusCode).toBe(200);
      expect(
        (await post('/webhooks/github', { 'x-github-delivery': 'd1' })).headers[
          'idempotent-replayed'
        ],
      ).toBe('true');
      expect((await post('/health')).statusCode).toBe(200);
      expect((await post('/webhooks/stripe')).statusCode).toBe(200);
      expect((await post('/webhooks/stripe')).headers['idempotent-replayed']).toBe('true');
      expect((await post('/shop/orders')).statusCode).toBe(400); // guarded: no webhook-id
      expect((await post('/shop/orders', { 'webhook-id': 'w1' })).statusCode).toBe(200);
      expect((await post('/shop/ping')).statusCode).toBe(200); // not guarded
      expect(store.size).toBe(3);
    } finally {
      await app.close();
    }
  });

  it('the transaction over knex: one payment row however often the event arrives; a body that is not a payment gets 400 and claims nothing', async () => {
    const { app, db } = await fastifySnippets.transactionApp(sqliteFile('fastify-tx'));
    try {
      await app.ready();
      await payment(app.server).expect(200, { received: true });
      await payment(app.server).expect(200).expect('idempotent-replayed', 'true');
      expect(await db('payments').count({ n: '*' })).toEqual([{ n: 1 }]);
      const refused = await notAPayment(app.server);
      expect(refused.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_KEY_MISSING' });
      expect(refused.body.message).toMatch(/payment event \(id, data\.object\.id/);
      expect(await db('payments').count({ n: '*' })).toEqual([{ n: 1 }]);
      expect(await db('webhook_receipts').count({ n: '*' })).toEqual([{ n: 1 }]);
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});

describe('koa', () => {
  it('rawBodyParser: the GitHub signature verifies over the bytes as sent; 413 past the limit, 400 for malformed JSON, 422 for a body the schema refuses', async () => {
    const secret = 'snippet secret';
    const store = new InMemoryStore();
    const server = koaSnippets.rawBodyApp(store, secret).callback();
    const signed = (
      body: string,
      signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    ) => github(server, body).set('x-hub-signature-256', signature);
    const body = '{"action":  "opened"}';
    await signed(body).expect(200, { received: 'opened' });
    await signed(body).expect(200).expect('idempotent-replayed', 'true');
    await signed(
      body,
      `sha256=${createHmac('sha256', secret)
        .update(JSON.stringify(JSON.parse(body)))
        .digest('hex')}`,
    ).expect(401);
    await signed(JSON.stringify({ action: 'x'.repeat(512 * 1024) })).expect(413);
    await signed('{"action": ').expect(400);
    const refused = await signed('{"action":5}').expect(422); // verified, then refused by the schema
    expect(refused.body.code).toBe('ERR_IDEMPOTENCY_PAYLOAD_INVALID');
    expect(refused.body.issues).toEqual([expect.stringMatching(/^action: /)]);
    expect(store.size).toBe(1);
  });

  it('the transaction: one payment row however often the event arrives; a body that is not a payment gets 400 and claims nothing', async () => {
    const { app, db } = await koaSnippets.transactionApp(sqliteFile('koa-tx'));
    try {
      const server = app.callback();
      await payment(server).expect(200, { received: true });
      await payment(server).expect(200).expect('idempotent-replayed', 'true');
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      const refused = await notAPayment(server);
      expect(refused.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_KEY_MISSING' });
      expect(refused.body.message).toMatch(/payment event \(id, data\.object\.id/);
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      expect(receipts(db)).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it('app.use: every later middleware guarded, provider from the path, /health answered before the guard', async () => {
    const store = new InMemoryStore();
    const server = koaSnippets.appWideApp(store).callback();
    const send = (provider: string) =>
      request(server)
        .post(`/webhooks/${provider}`)
        .set('content-type', 'application/json')
        .set('webhook-id', 'msg_1')
        .send('{"a":1}');
    await send('stripe').expect(200, { handled: '/webhooks/stripe' });
    await send('stripe').expect(200).expect('idempotent-replayed', 'true');
    await send('shop-a').expect(200, { handled: '/webhooks/shop-a' });
    await request(server).get('/health').expect(200, 'ok');
    expect(store.size).toBe(2);
  });
});
