/**
 * The route module as Next.js calls it: the exported POST with real `Request` objects (Node's
 * undici) and Next's `{ params }` context, signed by the test kit (`@webhook-idempotency/providers/testing`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import * as signers from '@webhook-idempotency/providers/testing';

const secret = 'whsec_test_nextjs_example';
const stripe = signers.stripe({ secret, url: 'http://localhost:3000/api/webhooks/stripe' });
const context = { params: Promise.resolve({}) };

type Route = typeof import('../src/app/api/webhooks/stripe/route');
let route: Route;
let db: Database.Database;

beforeAll(async () => {
  process.env.STRIPE_WEBHOOK_SECRET = secret;
  process.env.DATABASE_FILE = join(mkdtempSync(join(tmpdir(), 'nextjs-stripe-')), 'db.sqlite');
  const { database, migrate } = await import('../src/lib/db');
  db = database();
  await migrate(db);
  route = await import('../src/app/api/webhooks/stripe/route');
});

afterAll(() => db.close());

const succeeded = (id: string, intent: string, amount = 2500) => ({
  id,
  object: 'event',
  type: 'payment_intent.succeeded',
  data: {
    object: { id: intent, object: 'payment_intent', amount_received: amount, currency: 'eur' },
  },
});

/** A delivery as Stripe sends it, as the `Request` Next.js hands the route. */
const post = (delivery: signers.Delivery) => route.POST(signers.toRequest(delivery), context);

const payments = () => db.prepare('SELECT * FROM payments ORDER BY payment_intent').all();

describe('the nextjs-stripe route handler', () => {
  it('exports POST for the Node.js runtime', () => {
    expect(typeof route.POST).toBe('function');
    expect(route.runtime).toBe('nodejs');
  });

  it('books a payment once however often Stripe delivers the event', async () => {
    const delivery = stripe.event(succeeded('evt_1', 'pi_1'));
    const first = await post(delivery);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    const results = await Promise.all(Array.from({ length: 10 }, () => post(delivery.retry())));
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(await res.json()).toEqual({ received: true });
    }
    expect(payments()).toEqual([
      { payment_intent: 'pi_1', amount: 2500, currency: 'eur', event_id: 'evt_1' },
    ]);
  });

  it('concurrent first deliveries: one books, the others get the replay or 409 with Retry-After', async () => {
    const delivery = stripe.event(succeeded('evt_2', 'pi_2'));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(i === 0 ? delivery : delivery.retry())),
    );
    const fresh = results.filter(
      (res) => res.status === 200 && res.headers.get('idempotent-replayed') === null,
    );
    expect(fresh).toHaveLength(1);
    for (const res of results)
      if (res.status !== 200) {
        expect(res.status).toBe(409);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    expect(payments()).toHaveLength(2);
  });

  it('refuses a bad signature with 401 before any claim', async () => {
    const res = await post(stripe.event(succeeded('evt_3', 'pi_3')).forged());
    expect(res.status).toBe(401);
    expect(db.prepare("SELECT * FROM webhook_receipts WHERE external_id = 'evt_3'").all()).toEqual(
      [],
    );
    expect(payments()).toHaveLength(2);
  });

  it('acknowledges an event no route takes before any claim: 200, no receipt, nothing booked', async () => {
    const res = await post(stripe.event({ id: 'evt_c', type: 'customer.created', data: {} }));
    expect([res.status, await res.json()]).toEqual([200, { received: true }]);
    expect(db.prepare("SELECT * FROM webhook_receipts WHERE external_id = 'evt_c'").all()).toEqual(
      [],
    );
    expect(payments()).toHaveLength(2);
  });

  it('answers a reused event id with another payload 422, and books nothing', async () => {
    const res = await post(stripe.event(succeeded('evt_1', 'pi_1', 9999)));
    expect(res.status).toBe(422);
    expect(payments()).toHaveLength(2);
  });
});
