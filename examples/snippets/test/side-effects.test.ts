/**
 * docs/side-effects.md: each example through a failed first run and the retry that follows, the
 * outside API played by a local HTTP server that deduplicates by the key as the real ones do.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import nodemailer from 'nodemailer';
import Stripe from 'stripe';
import request from 'supertest';
import { payout, refundApp, sendReceipt } from '../src/side-effects';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * An API that keeps one result per `Idempotency-Key` and creates a new object only for a new key.
 * The first call it gets is done but answered 500, as when the connection drops after the work.
 */
async function keyedApi(): Promise<{
  server: Server;
  url: string;
  port: number;
  keys: string[];
  created: () => number;
}> {
  const keys: string[] = [];
  const done = new Map<string, string>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      keys.push(key);
      if (!done.has(key))
        done.set(key, JSON.stringify({ id: `obj_${done.size + 1}`, object: 'refund' }));
      res.writeHead(keys.length === 1 ? 500 : 200, { 'content-type': 'application/json' });
      res.end(keys.length === 1 ? '{"error":{"message":"connection dropped"}}' : done.get(key));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, port, keys, created: () => done.size };
}

describe('docs/side-effects.md', () => {
  let api: Awaited<ReturnType<typeof keyedApi>>;
  beforeEach(async () => {
    api = await keyedApi();
  });
  afterEach(() => new Promise((resolve) => api.server.close(resolve)));

  it('Stripe: the retried delivery refunds with the same idempotencyKey, so one refund is made', async () => {
    const secret = 'whsec_side_effects';
    const stripe = new Stripe('sk_test_side_effects', {
      host: '127.0.0.1',
      port: api.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    const store = new InMemoryStore();
    const app = refundApp({ store, secret, stripe });
    const body = JSON.stringify({
      id: 'evt_dispute_1',
      type: 'charge.dispute.created',
      data: { object: { payment_intent: 'pi_1' } },
    });
    const send = () =>
      request(app)
        .post('/webhooks/stripe')
        .set('content-type', 'application/json')
        .set(
          'stripe-signature',
          stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
        )
        .send(body);
    const first = await send();
    expect(first.status).toBe(500); // the refund call failed: Stripe retries the event
    expect(
      await store.find({ provider: 'stripe', externalId: 'evt_dispute_1' }, { now: Date.now() }),
    ).toMatchObject({ status: 'failed' });
    const retry = await send();
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ refund: 'obj_1' });
    expect(api.keys).toHaveLength(2);
    expect(api.keys[0]).toMatch(UUID_V8);
    expect(api.keys[1]).toBe(api.keys[0]);
    expect(api.keys[0]).toBe(
      new IdempotencyGuard(store).effectKey(
        { provider: 'stripe', externalId: 'evt_dispute_1' },
        'refund',
      ),
    );
    expect(api.created()).toBe(1);
  });

  it('fetch: the retried run sends the same Idempotency-Key header', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    const key = { provider: 'paddle', externalId: 'ntf_1' };
    const run = () => guard.run(key, (context) => payout(context, api.url, 'acct_9'));
    await expect(run()).rejects.toThrow('payout refused: 500');
    expect((await run()).response).toEqual({ id: 'obj_1', object: 'refund' });
    expect(api.keys).toEqual([guard.effectKey(key, 'payout'), guard.effectKey(key, 'payout')]);
    expect(api.created()).toBe(1);
  });

  it('nodemailer: a retry sends the mail again, under the same Message-ID', async () => {
    const mailer = nodemailer.createTransport({ streamTransport: true, buffer: true });
    const sent: string[] = [];
    mailer.use('compile', (mail, done) => {
      sent.push(String(mail.data.messageId));
      done();
    });
    const guard = new IdempotencyGuard(new InMemoryStore());
    const key = { provider: 'stripe', externalId: 'evt_paid_1' };
    let failAfterSending = true;
    const run = () =>
      guard.run(key, async (context) => {
        await sendReceipt(context, mailer, 'ada@example.com');
        if (failAfterSending) throw new Error('the next step failed');
      });
    await expect(run()).rejects.toThrow('the next step failed');
    failAfterSending = false;
    await run();
    const messageId = `<${guard.effectKey(key, 'email:receipt')}@billing.example.com>`;
    expect(sent).toEqual([messageId, messageId]); // two copies: SMTP does not deduplicate
  });
});
