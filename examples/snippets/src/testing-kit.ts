/**
 * @module docs/providers.md ("Testing your handler with the kit"): the test kit
 * (`@webhook-idempotency/providers/testing`) sending signed deliveries to an Express app with
 * supertest, a Fastify app with inject and a Hono app as a fetch Request; a retry, a forged copy
 * and an old delivery; a handshake, a challenge and a batch. test/testing-kit.test.ts runs each.
 */
// #region supertest
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
// #endregion supertest
// #region fastify
import Fastify from 'fastify';
import { fastifyIdempotency, rawBodyJsonParser } from '@webhook-idempotency/fastify';
// #endregion fastify
// #region fetch
import { Hono } from 'hono';
import { idempotent as honoIdempotent } from '@webhook-idempotency/hono';
// #endregion fetch
import { InMemoryStore } from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import express from 'express';

/** The app under test: Stripe on Express, counting the handler's runs. */
export function stripeApp(secret: string): { app: express.Express; runs: string[] } {
  const runs: string[] = [];
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: '*/*' }),
    idempotent({ store: new InMemoryStore(), preset: providers.stripe({ secret }) }),
    (req, res) => {
      runs.push(req.idempotency!.key.externalId);
      res.json({ received: true });
    },
  );
  return { app, runs };
}

/** A signed delivery, the provider's retry, a forged copy and an old delivery, sent with supertest. */
export async function withSupertest() {
  // #region supertest
  const secret = 'whsec_test_secret'; // the same secret for the preset and the signer
  const { app, runs } = stripeApp(secret); // your app: idempotent({ preset: providers.stripe({ secret }) })
  const stripe = signers.stripe({ secret });

  const delivery = stripe.event({
    id: 'evt_1',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_1', amount: 2000 } },
  });
  const first = await signers.send.supertest(request(app), delivery); // 200: the handler ran
  const retry = await signers.send.supertest(request(app), delivery.retry()); // Stripe re-signs it: replayed
  const forged = await signers.send.supertest(request(app), delivery.forged()); // 401, nothing stored
  // #endregion supertest
  // #region clock
  const old = stripe.event({ id: 'evt_2' }, { at: Date.now() - 60 * 60 * 1000 }); // signed an hour ago
  const replayed = await signers.send.supertest(request(app), old); // 401: outside Stripe's 5 minutes
  // #endregion clock
  return {
    statuses: [first.status, retry.status, forged.status, replayed.status],
    replayed: retry.headers['idempotent-replayed'],
    runs,
  };
}

/** The same with Fastify's inject. */
export async function withInject() {
  // #region fastify
  const secret = 'a GitHub webhook secret';
  const app = Fastify();
  app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
    await webhooks.register(fastifyIdempotency, {
      store: new InMemoryStore(),
      preset: providers.github({ secret }),
    });
    webhooks.post('/webhooks/github', async () => ({ received: true }));
  });

  const delivery = signers.github({ secret }).event({ ref: 'refs/heads/main' }, { event: 'push' });
  const first = await signers.send.inject(app, delivery); // statusCode 200
  const again = await signers.send.inject(app, delivery.retry()); // a redelivery: replayed
  // #endregion fastify
  await app.close();
  return [first.statusCode, again.statusCode, again.headers['idempotent-replayed']];
}

/** The same as a fetch Request, to a Hono app (or any fetch handler). */
export async function withFetch() {
  // #region fetch
  const secret = `whsec_${Buffer.from('a Standard Webhooks secret!').toString('base64')}`;
  const app = new Hono();
  app.post(
    '/webhooks/resend',
    honoIdempotent({ store: new InMemoryStore(), preset: providers.resend({ secret }) }),
    (c) => c.json({ received: true }),
  );

  const delivery = signers
    .resend({ secret })
    .event({ type: 'email.delivered', data: { email_id: 'e_1' } });
  const first = await app.request(signers.toRequest(delivery)); // 200
  const again = await app.request(signers.toRequest(delivery.retry())); // same svix-id, signed anew: replayed
  // #endregion fetch
  return [first.status, again.status, again.headers.get('idempotent-replayed')];
}

/** Handshakes and challenges the presets answer themselves, with the answer the provider expects. */
export async function handshakes() {
  // #region handshakes
  const discord = signers.discord(); // signs with a key of its own: give the preset its public key
  const discordApp = express();
  const discordPreset = providers.discord({ publicKey: discord.publicKey });
  discordApp.post(
    '/webhooks/discord', // the kit's default URL: https://example.com/webhooks/<provider>
    express.raw({ type: '*/*' }),
    idempotent({ store: new InMemoryStore(), preset: discordPreset }),
  );

  const ping = discord.ping();
  const pong = await signers.send.supertest(request(discordApp), ping);
  // pong.text === ping.answer: '{"type":1}'

  const meta = signers.meta({ appSecret: 'app secret', verifyToken: 'my verify token' });
  const metaApp = express();
  const guard = idempotent({
    store: new InMemoryStore(),
    preset: providers.meta({ appSecret: 'app secret', verifyToken: 'my verify token' }),
  });
  metaApp.get('/webhooks/meta', guard);

  const challenge = meta.challenge(); // GET ?hub.mode=subscribe&hub.challenge=…&hub.verify_token=…
  const echoed = await signers.send.supertest(request(metaApp), challenge); // 200, challenge.answer
  const refused = await signers.send.supertest(request(metaApp), challenge.forged()); // 403: wrong token
  // #endregion handshakes
  return {
    pong: [pong.status, pong.text, ping.answer],
    echoed: [echoed.status, echoed.text, challenge.answer],
    refused: refused.status,
  };
}

/** A batch of several events: each item runs once, the retry replays. */
export async function batch() {
  // #region batches
  const options = {
    clientSecret: 'hubspot client secret',
    targetUrl: 'https://app.example.com/webhooks/hubspot',
  };
  const booked: string[] = [];
  const app = express();
  app.post(
    '/webhooks/hubspot',
    express.raw({ type: '*/*' }),
    idempotent({ store: new InMemoryStore(), preset: providers.hubspot(options) }),
    async (req, res) => {
      await req.idempotency!.batch!.each((_event, context) => {
        booked.push(context.key.externalId);
      });
      res.sendStatus(200);
    },
  );

  const hubspot = signers.hubspot(options); // signs the targetUrl, as HubSpot does
  const events = [1, 2].map((eventId) => ({
    eventId,
    portalId: 62515,
    subscriptionId: 7,
    subscriptionType: 'contact.creation',
    attemptNumber: 0,
  }));
  const delivery = hubspot.batch(events);
  await signers.send.supertest(request(app), delivery); // booked: ['62515:7:1', '62515:7:2']
  await signers.send.supertest(request(app), delivery.retry()); // attemptNumber 1, signed anew: nothing booked again
  // #endregion batches
  return booked;
}
