/** The root README's one-liners: each guards its route (first delivery runs, the retry is replayed). */
import { InMemoryStore } from '@webhook-idempotency/core';
import Stripe from 'stripe';
import request from 'supertest';
import { readmeExpress } from '../src/readme-express';
import { readmeFastify } from '../src/readme-fastify';
import { readmeKoa } from '../src/readme-koa';

const twice = async (send: () => request.Test) => {
  const first = await send();
  const retry = await send();
  expect(first.status).toBe(200);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(retry.status).toBe(200);
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(retry.text).toBe(first.text);
};

describe('README usage lines', () => {
  it('Express: app.use(idempotent(...)) on /webhooks/github', async () => {
    const app = readmeExpress(new InMemoryStore());
    await twice(() =>
      request(app)
        .post('/webhooks/github')
        .set('x-github-delivery', 'd-1')
        .send({ action: 'opened' }),
    );
    await request(app).post('/webhooks/github').send({}).expect(400);
  });

  it('Fastify: register(fastifyIdempotency, { preset: stripe }) checks the signature and replays', async () => {
    const secret = 'whsec_readme';
    const app = await readmeFastify(new InMemoryStore(), secret);
    await app.ready();
    try {
      const body = JSON.stringify({ id: 'evt_readme', type: 'payment_intent.succeeded' });
      const signature = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({
        payload: body,
        secret,
      });
      const send = () =>
        request(app.server)
          .post('/webhooks/stripe')
          .set('content-type', 'application/json')
          .set('stripe-signature', signature)
          .send(body);
      await twice(send);
      await request(app.server)
        .post('/webhooks/stripe')
        .set('content-type', 'application/json')
        .set('stripe-signature', 't=1,v1=00')
        .send(body)
        .expect(401);
    } finally {
      await app.close();
    }
  });

  it('Koa: idempotent(...) on one @koa/router route with the Telegram preset', async () => {
    const server = readmeKoa(new InMemoryStore(), 'readme_token').callback();
    const send = () =>
      request(server)
        .post('/webhooks/telegram')
        .set('x-telegram-bot-api-secret-token', 'readme_token')
        .send({ update_id: 77 });
    await twice(send);
    await request(server)
      .post('/webhooks/telegram')
      .set('x-telegram-bot-api-secret-token', 'wrong')
      .send({ update_id: 78 })
      .expect(401);
  });
});
