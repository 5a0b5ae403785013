/**
 * examples/stripe-outbox end to end, on a SQLite file: Stripe's delivery (signed by the test kit)
 * sent three times, the handler failing on the first; a real SMTP server (`smtp-server`, reached
 * through nodemailer) and a warehouse API on 127.0.0.1, each refusing its first attempt for a
 * while and counting what it accepts by key. One booking, one email and one warehouse call are
 * accepted, every attempt carrying the same key; nothing goes out for the run that failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import type { OutboxEvent } from '@webhook-idempotency/core/outbox';
import * as signers from '@webhook-idempotency/providers/testing';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { createDispatcher, createShop, type Shop } from '../src/app';

const secret = 'whsec_test_outbox_example';
const stripe = signers.stripe({ secret });
const paid = stripe.event({
  id: 'evt_paid_1',
  object: 'event',
  type: 'payment_intent.succeeded',
  data: {
    object: {
      id: 'pi_1',
      object: 'payment_intent',
      amount_received: 2500,
      currency: 'eur',
      receipt_email: 'ada@example.com',
      metadata: { order_id: 'order_7' },
    },
  },
});
/** The keys the run derives: what every attempt of each message must carry. */
const keyOf = (name: string) =>
  new IdempotencyGuard(new InMemoryStore()).effectKey(
    { provider: 'stripe', externalId: 'evt_paid_1' },
    name,
  );

/** An SMTP server that answers the first message 451 (try again later), then accepts, by Message-ID. */
async function smtpServer() {
  const attempts: { messageId: string; key: string; to: string[] }[] = [];
  const accepted = new Map<string, string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = (name: string) =>
          new RegExp(`^${name}:\\s*(.+)$`, 'im').exec(raw)?.[1]?.trim() ?? '';
        const messageId = header('Message-ID');
        attempts.push({
          messageId,
          key: header('Idempotency-Key'),
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        });
        if (attempts.length === 1)
          return callback(
            Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }),
          );
        if (!accepted.has(messageId)) accepted.set(messageId, raw);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { server, port, attempts, accepted };
}

/** A warehouse API that answers its first request 503, then creates one shipment per `Idempotency-Key`. */
async function warehouseApi() {
  const keys: string[] = [];
  const shipments = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      keys.push(key);
      if (keys.length === 1) {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"error":"warming up"}');
      }
      if (!shipments.has(key))
        shipments.set(key, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ shipment: `sh_${shipments.size}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, keys, shipments };
}

describe('stripe-outbox example', () => {
  let dir: string;
  let shop: Shop;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let warehouse: Awaited<ReturnType<typeof warehouseApi>>;
  let failures = 0;
  let logged: unknown[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'stripe-outbox-'));
    [smtp, warehouse] = await Promise.all([smtpServer(), warehouseApi()]);
    failures = 1;
    logged = [];
    shop = await createShop({
      file: join(dir, 'shop.sqlite'),
      signingSecret: secret,
      warehouseUrl: warehouse.url,
      beforeCommit: () => {
        if (failures-- > 0) throw new Error('the ledger was locked');
      },
      logError: (error) => logged.push(error),
    });
  });

  afterEach(async () => {
    shop.close();
    await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
    await new Promise<void>((resolve) => warehouse.server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (delivery: signers.Delivery) => signers.send.supertest(request(shop.app), delivery);

  it('three deliveries and a failed first run: one booking, one email and one warehouse call accepted, every attempt under its key', async () => {
    const mail = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
    });
    const events: OutboxEvent[] = [];
    const dispatcher = createDispatcher(shop, {
      mail,
      backoffBaseMs: 1,
      onEvent: (event) => events.push(event),
    });
    try {
      // The first run books and records both messages, then fails before its commit.
      const first = await send(paid);
      expect([first.status, first.body]).toEqual([500, { error: 'internal error' }]);
      expect(logged).toEqual([new Error('the ledger was locked')]);
      expect(await shop.messages.list()).toEqual([]); // rolled back with the booking
      expect(await dispatcher.runOnce()).toBe(0); // so nothing is sent
      expect([smtp.attempts, warehouse.keys]).toEqual([[], []]);

      // Stripe retries: this run commits; its retry after that is a replay.
      const second = await send(paid.retry());
      expect([second.status, second.body]).toEqual([200, { booked: 'pi_1' }]);
      const third = await send(paid.retry());
      expect([third.status, third.headers['idempotent-replayed'], third.body]).toEqual([
        200,
        'true',
        { booked: 'pi_1' },
      ]);
      expect(shop.db.prepare('SELECT payment_intent, order_id FROM payments').all()).toEqual([
        { payment_intent: 'pi_1', order_id: 'order_7' },
      ]);

      // The dispatcher sends both; each receiver refuses its first attempt, the retry gets through.
      for (let round = 0; round < 500; round++) {
        const open = (await shop.messages.list()).filter((m) => m.status !== 'done');
        if (open.length === 0) break;
        await dispatcher.runOnce();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(
        (await shop.messages.list()).map((m) => [m.provider, m.externalId, m.status]).sort(),
      ).toEqual([
        ['email', keyOf('receipt-email'), 'done'],
        ['http', keyOf('ship-order'), 'done'],
      ]);

      const messageId = `<${keyOf('receipt-email')}@shop.example.com>`;
      expect(smtp.attempts).toEqual([
        { messageId, key: keyOf('receipt-email'), to: ['ada@example.com'] },
        { messageId, key: keyOf('receipt-email'), to: ['ada@example.com'] },
      ]);
      expect([...smtp.accepted.keys()]).toEqual([messageId]);
      expect(smtp.accepted.get(messageId)).toMatch(/^Subject: Receipt for order order_7$/m);

      expect(warehouse.keys).toEqual([keyOf('ship-order'), keyOf('ship-order')]);
      expect([...warehouse.shipments]).toEqual([
        [keyOf('ship-order'), { order: 'order_7', payment: 'pi_1' }],
      ]);

      expect(
        events.map((e) => [e.type, 'message' in e ? e.message.name : e.operation]).sort(),
      ).toEqual([
        ['retry', 'receipt-email'],
        ['retry', 'ship-order'],
        ['sent', 'receipt-email'],
        ['sent', 'ship-order'],
      ]);
      // Nothing left to send, however often the dispatcher looks.
      expect(await dispatcher.runOnce()).toBe(0);
    } finally {
      await dispatcher.stop();
      mail.close();
    }
  });
});
