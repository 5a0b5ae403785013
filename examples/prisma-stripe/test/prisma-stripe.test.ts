/**
 * The Prisma + Stripe example over HTTP, on a real PostgreSQL with the tables of its Prisma
 * migration: each event books once, through Prisma's transaction together with the receipt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
import { Schema } from '@webhook-idempotency/sql';
import { pgDatabase } from '@webhook-idempotency/sql/test/helpers/databases';
import { createStripeApp, type StripeApp } from '../src/app';

const secret = 'whsec_test_prisma_example';
const stripe = signers.stripe({ secret });
/** The migrations in the order Prisma applies them: the tables, then the ignored-event counts table. */
const MIGRATION = ['20261204000000_init', '20261206000000_ignored_counts']
  .map((name) =>
    readFileSync(join(__dirname, '..', 'prisma', 'migrations', name, 'migration.sql'), 'utf8'),
  )
  .join('\n');

const succeeded = (id: string, intent: string, orderId?: string) => ({
  id,
  object: 'event',
  type: 'payment_intent.succeeded',
  data: {
    object: {
      id: intent,
      object: 'payment_intent',
      amount_received: 2500,
      currency: 'eur',
      metadata: orderId === undefined ? {} : { order_id: orderId },
    },
  },
});

describe('prisma-stripe example', () => {
  let shop: StripeApp;
  let run = 0;

  beforeEach(async () => {
    const databaseUrl = await pgDatabase(`example_prisma_stripe_${++run}`);
    // What `prisma migrate deploy` does with the migration (its schema engine is a download
    // these machines refuse; the SQL is the same).
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(MIGRATION);
    await client.end();
    shop = createStripeApp({ databaseUrl, signingSecret: secret });
    await shop.prisma.order.create({ data: { id: 'ord_1', amount: 2500, currency: 'eur' } });
  });
  afterEach(() => shop.close());

  const send = (delivery: signers.Delivery) => signers.send.supertest(request(shop.app), delivery);

  it('books a payment once: the redeliveries get the stored answer; one payment, the order paid', async () => {
    const delivery = stripe.event(succeeded('evt_1', 'pi_1', 'ord_1'));
    const first = await send(delivery).expect(200);
    expect(first.body).toEqual({ received: true, booked: true });
    const again = await Promise.all([1, 2, 3].map(() => send(delivery.retry())));
    for (const res of again) {
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.body).toEqual(first.body);
    }
    expect(await shop.prisma.payment.count()).toBe(1);
    expect(await shop.prisma.order.findUnique({ where: { id: 'ord_1' } })).toMatchObject({
      status: 'paid',
    });
  });

  it('a failure half-way rolls back with the receipt; the retry runs afresh and books once', async () => {
    const delivery = stripe.event(succeeded('evt_2', 'pi_2', 'ord_2'));
    // No order ord_2 yet: the handler's update throws inside the transaction.
    const failed = await send(delivery).expect(500);
    expect(failed.headers['idempotent-replayed']).toBeUndefined();
    expect(await shop.prisma.payment.count()).toBe(0);
    await shop.prisma.order.create({ data: { id: 'ord_2', amount: 2500, currency: 'eur' } });
    const retry = await send(delivery.retry()).expect(200);
    expect([retry.headers['idempotent-replayed'], retry.body]).toEqual([
      undefined,
      { received: true, booked: true },
    ]);
    expect(await shop.prisma.payment.findMany({ select: { paymentIntent: true } })).toEqual([
      { paymentIntent: 'pi_2' },
    ]);
  });

  it("acknowledges another event, and a payment that is not the shop's, booking nothing", async () => {
    const other = await send(stripe.event({ id: 'evt_c', type: 'customer.created', data: {} }));
    expect(other.body).toEqual({ received: true });
    // No route takes it: answered before any claim, no receipt.
    const ignored = await shop.prisma.$queryRawUnsafe<unknown[]>(
      'SELECT 1 FROM webhook_receipts WHERE external_id = $1',
      'evt_c',
    );
    expect(ignored).toHaveLength(0);
    const foreign = stripe.event(succeeded('evt_f', 'pi_f')); // no order_id in its metadata
    expect((await send(foreign).expect(200)).body).toEqual({
      received: true,
      booked: false,
    });
    expect(await shop.prisma.payment.count()).toBe(0);
  });

  it('refuses a forged signature before any claim: 401, no receipt', async () => {
    const forged = stripe.event(succeeded('evt_forged', 'pi_3', 'ord_1')).forged();
    const res = await send(forged).expect(401);
    expect(res.body.code).toBe('ERR_IDEMPOTENCY_SIGNATURE_INVALID');
    const receipts = await shop.prisma.$queryRawUnsafe<unknown[]>(
      'SELECT 1 FROM webhook_receipts WHERE external_id = $1',
      'evt_forged',
    );
    expect(receipts).toHaveLength(0);
    expect(await shop.prisma.payment.count()).toBe(0);
  });

  it("the migrations' receipts and ignored-counts tables are the store's own DDL (webhook-idempotency migrate --print)", () => {
    const receipts = MIGRATION.slice(
      MIGRATION.indexOf('CREATE TABLE IF NOT EXISTS "webhook_receipts"'),
    );
    expect(receipts.trim()).toBe(`${Schema.statements('postgres').join(';\n\n')};`);
  });
});
