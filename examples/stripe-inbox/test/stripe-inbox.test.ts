/**
 * examples/stripe-inbox on a SQLite file and on PostgreSQL, with events signed by the test kit
 * (`@webhook-idempotency/providers/testing`): the endpoint answers 200 before any payment is booked (no business code in
 * the request), ten concurrent redeliveries store one delivery, the worker books it exactly once,
 * a forged signature stores nothing, and an event no route takes is answered and never stored.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInboxWorker, DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import * as signers from '@webhook-idempotency/providers/testing';
import pg from 'pg';
import request from 'supertest';
import { buildApp, buildWorker, connect, type Databases, migrate } from '../src/app';

const secret = 'whsec_test_inbox_example';
const stripe = signers.stripe({ secret });
const succeeded = (id: string, intent: string) =>
  stripe.event({
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: intent,
        object: 'payment_intent',
        amount_received: 2500,
        currency: 'eur',
        customer: 'cus_1',
      },
    },
  });

async function pgUrl(): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.WI_PG_URL });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS example_stripe_inbox WITH (FORCE)');
  await admin.query('CREATE DATABASE example_stripe_inbox');
  await admin.end();
  const url = new URL(process.env.WI_PG_URL!);
  url.pathname = '/example_stripe_inbox';
  return url.toString();
}

describe.each([
  [
    'SQLite file',
    async () => ({
      sqliteFile: join(
        mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'stripe-inbox-')),
        'db.sqlite',
      ),
    }),
  ],
  ['PostgreSQL', async () => ({ databaseUrl: await pgUrl() })],
])('stripe-inbox on %s', (_name, where) => {
  let dbs: Databases;
  beforeAll(async () => {
    dbs = connect(await where());
    await migrate(dbs);
  });
  afterAll(() => dbs.destroy());

  const post = (app: ReturnType<typeof buildApp>, delivery: signers.Delivery) =>
    signers.send.supertest(request(app), delivery);

  it('answers every redelivery 200 at once, stores the event once, and the worker books it once', async () => {
    const app = buildApp(dbs, secret);
    const delivery = succeeded('evt_1', 'pi_1');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(app, i === 0 ? delivery : delivery.retry())),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    // Acknowledged, not processed: nothing was booked while the provider waited.
    expect(Number((await dbs.app('payments').count({ n: '*' }))[0]!.n)).toBe(0);
    const inbox = new SqlInbox(dbs.inbox);
    expect(await inbox.list()).toHaveLength(1);

    const worker = buildWorker(dbs, secret);
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(0);
    expect(await dbs.app('payments').select('payment_intent', 'event_id')).toEqual([
      { payment_intent: 'pi_1', event_id: 'evt_1' },
    ]);
    expect((await inbox.find('stripe', 'evt_1'))!.status).toBe(DeliveryStatus.DONE);

    // A redelivery after processing is acknowledged again and changes nothing.
    const late = await post(app, delivery.retry());
    expect([late.status, late.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(await worker.runOnce()).toBe(0);
  });

  it('a forged signature is 401 and stores nothing; the background worker stops cleanly', async () => {
    const app = buildApp(dbs, secret);
    const forged = succeeded('evt_forged', 'pi_forged').forged();
    expect((await post(app, forged)).status).toBe(401);
    expect(await new SqlInbox(dbs.inbox).find('stripe', 'evt_forged')).toBeNull();

    const worker = buildWorker(dbs, secret, { pollIntervalMs: 10 });
    worker.start();
    expect((await post(app, succeeded('evt_2', 'pi_2'))).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      if ((await new SqlInbox(dbs.inbox).find('stripe', 'evt_2'))?.status === DeliveryStatus.DONE)
        break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await worker.stop();
    expect(worker.running).toBe(false);
    expect(await dbs.app('payments').where({ payment_intent: 'pi_2' }).select('event_id')).toEqual([
      { event_id: 'evt_2' },
    ]);
  });

  it('answers an event no route takes 200 and never stores it: the worker has nothing to run', async () => {
    const app = buildApp(dbs, secret);
    const other = stripe.event({ id: 'evt_cus', type: 'customer.created', data: { object: {} } });
    const answer = await post(app, other);
    expect([answer.status, answer.body]).toEqual([200, { received: true }]);
    expect(await new SqlInbox(dbs.inbox).find('stripe', 'evt_cus')).toBeNull();
    expect(await buildWorker(dbs, secret).runOnce()).toBe(0);
    expect(await dbs.app('payments').where({ event_id: 'evt_cus' })).toEqual([]);
  });

  it('acknowledges a new event while a worker handler is mid-transaction (it has written and is held)', async () => {
    const app = buildApp(dbs, secret);
    expect((await post(app, succeeded('evt_held', 'pi_held'))).status).toBe(200);
    const order: string[] = [];
    let inside!: () => void;
    const handlerInside = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The example's databases, with a handler that books, then stays in its transaction.
    const worker = createInboxWorker({
      inbox: new SqlInbox(dbs.inbox),
      store: new SqlStore(dbs.app),
      handlers: {
        stripe: async (delivery, { transaction }) => {
          await transaction!('payments').insert({
            payment_intent: `pi_${delivery.externalId}`,
            amount: 1,
            currency: 'eur',
            event_id: delivery.externalId,
          });
          order.push('handler wrote');
          inside();
          await released;
          order.push('handler released');
          return { booked: true };
        },
      },
    });
    const running = worker.runOnce();
    await handlerInside;
    const accepted = post(app, succeeded('evt_during', 'pi_during')).then((answer) => {
      order.push('accepted');
      return answer;
    });
    // A bound for the failing case (an endpoint that waits for the handler would wait forever):
    // the handler is released when the acknowledgement came, or after 5 s without one.
    await Promise.race([accepted, new Promise((resolve) => setTimeout(resolve, 5000))]);
    release();
    expect((await accepted).status).toBe(200);
    expect(await running).toBe(1);
    expect(order).toEqual(['handler wrote', 'accepted', 'handler released']);
    expect((await new SqlInbox(dbs.inbox).find('stripe', 'evt_during'))?.status).toBe(
      DeliveryStatus.PENDING,
    );
  });
});
