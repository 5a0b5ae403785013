/** docs/adapters/nestjs.md and packages/nestjs/README.md: every example app, driven over HTTP. */
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Knex } from 'knex';
import request from 'supertest';
import { AppModule, fastifyApp, transactionModule } from '../src/nestjs';
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

  it('forRootAsync with the transaction over knex: one payment row however often the event arrives', async () => {
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
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});
