/**
 * The outbox end to end on PostgreSQL (issue 43): messages recorded by `Outbox.add` in a
 * transactional guard's run over a `SqlStore`, sent by `createOutboxDispatcher` over `SqlOutbox`
 * with `httpSender` to a node:http receiver on 127.0.0.1. A committed message arrives once with
 * its effect key in `Idempotency-Key` and its JSON; a message of a run that rolled back never does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { createOutboxDispatcher, httpSender, Outbox } from '@webhook-idempotency/core/outbox';
import { OutboxSchema, Schema, SqlOutbox, SqlStore } from '../src';
import { driverKinds, type OpenedKind } from './helpers/kinds';

interface Received {
  readonly key: string | undefined;
  readonly body: unknown;
}

describe.each(driverKinds('outbox_dispatch').filter(([name]) => name === 'pg Pool'))(
  'the outbox end to end (%s)',
  (_name, open) => {
    let opened: OpenedKind;
    let server: Server;
    let url = '';
    const received: Received[] = [];

    beforeAll(async () => {
      opened = await open();
      await Schema.createTable(opened.db);
      await OutboxSchema.createTable(opened.db);
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            key: request.headers['idempotency-key'] as string | undefined,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          });
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/refunds`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      await opened.close();
    });

    it('a committed message reaches the receiver with its key; one of a run that rolled back never does', async () => {
      const store = new SqlStore(opened.db);
      const messages = new SqlOutbox(opened.db, { receipts: store });
      const outbox = new Outbox({ store: messages });
      const guard = new IdempotencyGuard(store, { transactional: true });

      let committed = '';
      await guard.run(new RequestKey('stripe', 'evt_paid'), async (context) => {
        committed = await outbox.add(context, {
          name: 'refund',
          sender: 'http',
          payload: { url, json: { amount: 1250 } },
        });
        return 'ok';
      });
      let rolledBack = '';
      const boom = new Error('the order was cancelled meanwhile');
      await expect(
        guard.run(new RequestKey('stripe', 'evt_cancelled'), async (context) => {
          rolledBack = await outbox.add(context, {
            name: 'refund',
            sender: 'http',
            payload: { url, json: { amount: 99 } },
          });
          throw boom;
        }),
      ).rejects.toBe(boom);

      const dispatcher = createOutboxDispatcher({
        outbox: messages,
        senders: { http: httpSender() },
      });
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await dispatcher.runOnce()).toBe(0);
      expect(received).toEqual([{ key: committed, body: { amount: 1250 } }]);
      expect(received.map((r) => r.key)).not.toContain(rolledBack);
      expect(await messages.find('http', committed)).toMatchObject({ status: 'done' });
      expect(await messages.find('http', rolledBack)).toBeNull();
    });
  },
);
