/**
 * docs/outbox.md on PostgreSQL: the tables, a message recorded by `guard.run`, by an Express
 * handler and by an inbox worker's handler, the dispatcher's process sending them to a local HTTP
 * server and a local SMTP server (`smtp-server`, through nodemailer) and stopping on SIGTERM, and a
 * Stripe refund sender against a local stand-in for Stripe's API.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import { redeliverDelivery } from '@webhook-idempotency/core/operations';
import { PermanentSendFailure } from '@webhook-idempotency/core/outbox';
import { InboxSchema, ReceiptsAdmin, SqlInbox } from '@webhook-idempotency/sql';
import { SMTPServer } from 'smtp-server';
import Stripe from 'stripe';
import request from 'supertest';
import {
  invoiceWorker,
  outboxSetup,
  outboxStatements,
  payOrder,
  refundSender,
  shippingApp,
  startDispatcher,
} from '../src/outbox';
import { pgDatabase } from './helpers/databases';

const SECRET = 'whsec_snippets_outbox';
const keyOf = (provider: string, externalId: string, name: string) =>
  new IdempotencyGuard(new InMemoryStore()).effectKey({ provider, externalId }, name);
const signed = (body: string) => {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
};

/** An HTTP server recording each request's path, `Idempotency-Key` and body; answers `answer(n)`. */
async function httpReceiver(answer: (n: number) => { status: number; body: string }) {
  const requests: { path: string; key: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: String(req.url),
        key: String(req.headers['idempotency-key']),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const { status, body } = answer(requests.length);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    requests,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An SMTP server keeping each message's raw text. */
async function smtpReceiver() {
  const messages: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    messages,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const waitFor = async (done: () => Promise<boolean>) => {
  for (let i = 0; i < 400 && !(await done()); i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
};

let setup: Awaited<ReturnType<typeof outboxSetup>>;
beforeAll(async () => {
  process.env.DATABASE_URL = await pgDatabase('snippets_outbox');
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
  setup = await outboxSetup();
  await InboxSchema.createTable(setup.pool); // the worker's deliveries
  await setup.pool.query(
    `CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT NOT NULL DEFAULT 'open');
     CREATE TABLE invoices (id TEXT PRIMARY KEY, paid BOOLEAN NOT NULL DEFAULT false);
     INSERT INTO orders (id) VALUES ('order_1'), ('order_2');
     INSERT INTO invoices (id) VALUES ('in_1')`,
  );
});
afterAll(async () => {
  await setup.pool.end();
  delete process.env.DATABASE_URL;
  delete process.env.STRIPE_WEBHOOK_SECRET;
  delete process.env.WAREHOUSE_URL;
  delete process.env.SMTP_URL;
});

it('the migration statements create the webhook_outbox table the setup created', async () => {
  const statements = outboxStatements();
  expect(statements.join('\n')).toMatch(/CREATE TABLE IF NOT EXISTS "?webhook_outbox"?/);
  const { rows } = await setup.pool.query("SELECT to_regclass('webhook_outbox') AS t");
  expect(rows).toEqual([{ t: 'webhook_outbox' }]);
});

it('guard.run: the order paid and its email recorded under effectKey, once however often the run is asked for', async () => {
  const first = await payOrder(setup, 'evt_paid_1', 'order_1', 'ada@example.com');
  const again = await payOrder(setup, 'evt_paid_1', 'order_1', 'ada@example.com');
  const key = keyOf('stripe', 'evt_paid_1', 'receipt-email');
  expect([first.response, again.isReplay]).toEqual([{ key }, true]);
  const message = await setup.messages.find('email', key);
  expect(message).toMatchObject({ status: 'pending', provider: 'email', externalId: key });
  expect(message!.headers).toEqual({
    'receipt-provider': 'stripe',
    'receipt-id': 'evt_paid_1',
    'effect-name': 'receipt-email',
  });
  expect(JSON.parse(message!.body.toString('utf8'))).toEqual({
    to: 'ada@example.com',
    subject: 'Your receipt',
    text: 'Order order_1 is paid.',
  });
});

it('a run that fails after recording leaves no message: it rolled back with the run', async () => {
  const guard = new IdempotencyGuard(setup.store, { transactional: true });
  const key = new RequestKey('stripe', 'evt_rolled_back');
  await expect(
    guard.run(key, async (context) => {
      await setup.outbox.add(context, { name: 'receipt-email', sender: 'email', payload: {} });
      throw new Error('the next step failed');
    }),
  ).rejects.toThrow('the next step failed');
  expect(
    await setup.messages.find('email', keyOf('stripe', 'evt_rolled_back', 'receipt-email')),
  ).toBeNull();
});

it('Express and the inbox worker record; the dispatcher process sends over HTTP and SMTP under the keys, then stops on SIGTERM', async () => {
  const warehouse = await httpReceiver(() => ({ status: 201, body: '{"shipment":"sh_1"}' }));
  const smtp = await smtpReceiver();
  process.env.WAREHOUSE_URL = warehouse.url;
  process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  try {
    const body = JSON.stringify({
      id: 'evt_ship_1',
      type: 'payment_intent.succeeded',
      data: { object: { id: 'pi_1', metadata: { order_id: 'order_2' } } },
    });
    const answer = await request(shippingApp(setup))
      .post('/webhooks/stripe')
      .set('content-type', 'application/json')
      .set('stripe-signature', signed(body))
      .send(body);
    expect([answer.status, answer.body]).toEqual([200, { paid: 'order_2' }]);

    const worker = invoiceWorker(setup);
    const invoice = {
      id: 'evt_invoice_1',
      type: 'invoice.paid',
      data: { object: { id: 'in_1', number: 'INV-0001', customer_email: 'bob@example.com' } },
    };
    const deliveries = new SqlInbox(setup.pool);
    await deliveries.enqueue({
      provider: 'stripe',
      externalId: invoice.id,
      orderingKey: null,
      headers: {},
      body: Buffer.from(JSON.stringify(invoice)),
    });
    expect(await worker.runOnce()).toBe(1);
    expect((await setup.pool.query('SELECT paid FROM invoices')).rows).toEqual([{ paid: true }]);

    const before = process.listeners('SIGTERM');
    const { dispatcher } = startDispatcher();
    const onSigterm = process.listeners('SIGTERM').find((l) => !before.includes(l));
    try {
      const keys = {
        ship: keyOf('stripe', 'evt_ship_1', 'ship'),
        invoice: keyOf('stripe', 'evt_invoice_1', 'invoice-email'),
        receipt: keyOf('stripe', 'evt_paid_1', 'receipt-email'),
      };
      await waitFor(async () => {
        const states = await Promise.all([
          setup.messages.find('http', keys.ship),
          setup.messages.find('email', keys.invoice),
          setup.messages.find('email', keys.receipt),
        ]);
        return states.every((m) => m?.status === 'done');
      });
      expect(warehouse.requests).toEqual([
        { path: '/shipments', key: keys.ship, body: '{"order":"order_2"}' },
      ]);
      const ids = smtp.messages
        .map((raw) => /^Message-ID:\s*(.+)$/im.exec(raw)?.[1]?.trim())
        .sort();
      expect(ids).toEqual(
        [`<${keys.invoice}@billing.example.com>`, `<${keys.receipt}@billing.example.com>`].sort(),
      );
      expect(smtp.messages.join('\n')).toMatch(/^From: Billing <billing@example\.com>$/m);
      expect(dispatcher.state).toBe('running');
      expect(onSigterm).toBeDefined();
      await (onSigterm as () => Promise<void>)();
      expect(dispatcher.state).toBe('stopped');

      // An operator redelivers the handled invoice on purpose: its handler runs again, and its
      // email, recorded and sent already under the same key, stays the one sent message.
      const redelivered = await redeliverDelivery(
        { inbox: deliveries, receipts: async () => new ReceiptsAdmin(setup.pool) },
        { provider: 'stripe', externalId: 'evt_invoice_1' },
        { force: true },
      );
      expect(redelivered).toMatchObject({ redelivered: true, receiptForgotten: true });
      expect(await worker.runOnce()).toBe(1);
      // Its receipt forgotten, completed again: the handler ran.
      expect(
        await new ReceiptsAdmin(setup.pool).find({
          provider: 'stripe',
          externalId: 'evt_invoice_1',
        }),
      ).toMatchObject({ status: 'completed' });
      expect(await setup.messages.find('email', keys.invoice)).toMatchObject({ status: 'done' });
      expect(smtp.messages).toHaveLength(2);
    } finally {
      if (onSigterm) process.removeListener('SIGTERM', onSigterm);
      await dispatcher.stop();
    }
  } finally {
    await warehouse.close();
    await smtp.close();
  }
});

it('the refund sender sends the key as Stripe idempotencyKey; a 400 is a PermanentSendFailure, a 500 an ordinary error', async () => {
  const answers = [
    { status: 200, body: '{"id":"re_1","object":"refund"}' },
    {
      status: 400,
      body: '{"error":{"type":"invalid_request_error","message":"Charge already refunded"}}',
    },
    { status: 500, body: '{"error":{"type":"api_error","message":"Something went wrong"}}' },
  ];
  const stripeApi = await httpReceiver((n) => answers[n - 1]!);
  try {
    const stripe = new Stripe('sk_test_outbox', {
      host: '127.0.0.1',
      port: stripeApi.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    const send = refundSender(stripe);
    const input = (attempt: number) => ({
      key: keyOf('stripe', 'evt_dispute_1', 'refund'),
      name: 'refund',
      payload: { payment_intent: 'pi_1' },
      receipt: { provider: 'stripe', externalId: 'evt_dispute_1' },
      attempt,
      signal: new AbortController().signal,
    });
    await expect(send(input(1))).resolves.toBeUndefined();
    const refused = send(input(2));
    await expect(refused).rejects.toBeInstanceOf(PermanentSendFailure);
    await expect(refused).rejects.toThrow('Charge already refunded');
    const failed = send(input(3));
    await expect(failed).rejects.toThrow('Something went wrong');
    await expect(failed).rejects.not.toBeInstanceOf(PermanentSendFailure);
    expect(stripeApi.requests.map((r) => [r.path, r.key])).toEqual(
      Array(3).fill(['/v1/refunds', keyOf('stripe', 'evt_dispute_1', 'refund')]),
    );
  } finally {
    await stripeApi.close();
  }
});
