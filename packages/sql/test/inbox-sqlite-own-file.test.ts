/**
 * SQLite with slow handlers (docs/inbox.md, "SQLite: the inbox in a file of its own"): SQLite has
 * one write lock per file, and a worker's transaction holds it from the handler's first write to
 * its commit. With the deliveries in a file of their own (their own better-sqlite3 Database, WAL),
 * the endpoint stores and acknowledges a new delivery while a handler on the application's file
 * has written and is still inside its transaction.
 */
import Database from 'better-sqlite3';
import { createInboxWorker, DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '../src';
import { sqliteFile } from './helpers/databases';

it('the endpoint acknowledges while a handler on the application file is mid-transaction', async () => {
  const file = sqliteFile('app');
  // #region separate-files
  const appDb = new Database(file); // your tables and the receipts
  const inboxDb = new Database(`${file}.inbox`); // the deliveries, nothing else
  appDb.pragma('journal_mode = WAL');
  inboxDb.pragma('journal_mode = WAL');
  await Schema.createTable(appDb);
  await InboxSchema.createTable(inboxDb);
  const inbox = new SqlInbox(inboxDb); // for the endpoint and the worker
  const store = new SqlStore(appDb); // the worker's receipts, committed with the handler's writes
  // #endregion separate-files
  try {
    appDb.exec('CREATE TABLE effects (id TEXT PRIMARY KEY)');
    const engine = createInboxEngine({
      inbox,
      provider: 'p',
      key: (native: { id: string }) => native.id,
      verify: () => true,
    });
    const deliver = (id: string) =>
      engine.accept({
        method: 'POST',
        url: '/hook',
        headers: { 'content-type': 'application/json' },
        rawBody: Buffer.from('{}'),
        body: undefined,
        native: { id },
      });
    expect(await deliver('first')).toMatchObject({ action: 'respond', stored: true });

    const order: string[] = [];
    let inside!: () => void;
    const handlerInside = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = createInboxWorker({
      inbox,
      store,
      handlers: {
        p: async (delivery, { transaction }) => {
          (transaction as Database.Database)
            .prepare('INSERT INTO effects (id) VALUES (?)')
            .run(delivery.externalId);
          order.push('handler wrote');
          inside();
          await released;
          order.push('handler released');
        },
      },
    });
    const running = worker.runOnce();
    await handlerInside;
    const accepted = deliver('during').then((decision) => {
      order.push('accepted');
      return decision;
    });
    // A bound for the failing case only: the handler is released once the acknowledgement came,
    // or after 5 s without one.
    await Promise.race([accepted, new Promise((resolve) => setTimeout(resolve, 5000))]);
    release();
    expect(await accepted).toMatchObject({ action: 'respond', stored: true });
    expect(await running).toBe(1);
    expect(order).toEqual(['handler wrote', 'accepted', 'handler released']);
    expect((await inbox.find('p', 'first'))?.status).toBe(DeliveryStatus.DONE);
    expect((await inbox.find('p', 'during'))?.status).toBe(DeliveryStatus.PENDING);
    expect(appDb.prepare('SELECT id FROM effects').all()).toEqual([{ id: 'first' }]);
  } finally {
    appDb.close();
    inboxDb.close();
  }
});
