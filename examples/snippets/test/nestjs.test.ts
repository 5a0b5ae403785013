/** docs/adapters/nestjs.md and packages/nestjs/README.md: every example app, driven over HTTP. */
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Knex } from 'knex';
import request from 'supertest';
import { createHmac } from 'node:crypto';
import { InboxSchema } from '@webhook-idempotency/sql';
import { AppModule, fastifyApp, inboxModule, transactionModule } from '../src/nestjs';
import { sqliteFile } from './helpers/databases';

const DELIVERY = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const github = (app: INestApplication, body = '{"action":"opened"}') =>
  request(app.getHttpServer())
    .post('/webhooks/github')
    .set('content-type', 'application/json')
    .set('x-github-delivery', DELIVERY)
    .send(body);

describe('nestjs', () => {
  it.each<[string, () => Promise<INestApplication>]>([
    ['express', () => NestFactory.create(AppModule, { rawBody: true, logger: false })],
    ['fastify', () => fastifyApp()],
  ])(
    'the minimal module on %s: first delivery, replay, 400 naming the missing header, 422 for another body',
    async (platform, make) => {
      const app = await make();
      try {
        if (platform === 'fastify') app.useLogger(false);
        await app.init();
        if (platform === 'fastify') await app.getHttpAdapter().getInstance().ready();
        const first = await github(app).expect(200);
        expect(first.body).toEqual({ received: 'opened', attempts: 1 });
        const retry = await github(app).expect(200);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(retry.text).toBe(first.text);
        const missing = await request(app.getHttpServer())
          .post('/webhooks/github')
          .set('content-type', 'application/json')
          .send('{}')
          .expect(400);
        expect(missing.body.message).toMatch(/X-GitHub-Delivery header/);
        await github(app, '{"action":"closed"}').expect(422);
      } finally {
        await app.close();
      }
    },
  );

  it('forRootAsync with the transaction over knex: one payment row however often the event arrives; a body that is not a payment gets 400 and claims nothing', async () => {
    const { PaymentsModule, DATABASE } = transactionModule(sqliteFile('nestjs-tx'));
    const app = await NestFactory.create(PaymentsModule, { rawBody: true, logger: false });
    const db = app.get<Knex>(DATABASE);
    await db.schema.createTable('payments', (t) => {
      t.string('payment_intent').primary();
      t.integer('amount').notNullable();
    });
    try {
      await app.init();
      const payment = () =>
        request(app.getHttpServer())
          .post('/webhooks/payments')
          .send({ id: 'evt_1', data: { object: { id: 'pi_1', amount: 500 } } });
      await payment().expect(200, { received: true });
      await payment().expect(200).expect('idempotent-replayed', 'true');
      expect(await db('payments').count({ n: '*' })).toEqual([{ n: 1 }]);
      const refused = await request(app.getHttpServer())
        .post('/webhooks/payments')
        .send({ id: 'evt_2', data: { object: { id: 'pi_2', amount: 'five' } } })
        .expect(400);
      expect(refused.body).toMatchObject({ code: 'ERR_IDEMPOTENCY_KEY_MISSING' });
      expect(refused.body.message).toMatch(/payment event \(id, data\.object\.id/);
      expect(await db('payments').count({ n: '*' })).toEqual([{ n: 1 }]);
      expect(await db('webhook_receipts').count({ n: '*' })).toEqual([{ n: 1 }]);
    } finally {
      await app.close();
      await db.destroy();
    }
  });

  it('the inbox endpoint as Nest middleware on the Express platform: stored once, 200, a duplicate replayed, a forged one 401', async () => {
    process.env.STRIPE_WEBHOOK_SECRET = 'whsec_nest_inbox';
    const { WebhooksModule, deliveries, db } = inboxModule(sqliteFile('nest-inbox'));
    await InboxSchema.createTable(db);
    const app = await NestFactory.create(WebhooksModule, { rawBody: true, logger: false });
    try {
      await app.init();
      const body = '{ "id":"evt_nest", "type":"invoice.paid" }';
      const t = Math.floor(Date.now() / 1000);
      const signature = `t=${t},v1=${createHmac('sha256', 'whsec_nest_inbox').update(`${t}.${body}`).digest('hex')}`;
      const post = (sig = signature) =>
        request(app.getHttpServer())
          .post('/webhooks/stripe')
          .set('content-type', 'application/json')
          .set('stripe-signature', sig)
          .send(body);
      expect((await post()).status).toBe(200);
      const again = await post();
      expect([again.status, again.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect((await post('t=1,v1=00')).status).toBe(401);
      const stored = await deliveries.list();
      expect(stored.map((d) => [d.externalId, d.bodyBytes])).toEqual([
        ['evt_nest', Buffer.byteLength(body)],
      ]);
      expect((await deliveries.find('stripe', 'evt_nest'))!.body.toString('utf8')).toBe(body);
    } finally {
      await app.close();
      db.close();
      delete process.env.STRIPE_WEBHOOK_SECRET;
    }
  });
});
