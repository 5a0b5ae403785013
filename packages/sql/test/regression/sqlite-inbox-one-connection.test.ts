/**
 * On SQLite, one connection for `SqlInbox` and the worker's `SqlStore` (the obvious setup: one
 * better-sqlite3 `Database` for both) runs, but a handler's transaction holds the database's only
 * write lock, so the endpoint's `INSERT` (the provider's acknowledgement) waits for the handlers,
 * and nothing said so: a user learnt it from a provider's timeouts. The worker and the queue
 * consumer now report a `warning` event when they are built (`SQLITE_SHARED_CONNECTION`, naming
 * the fix: the deliveries in a file of their own), found the way the inbox already tells that it
 * shares the store's connection. Nothing is said for the documented setup (two files), for a
 * server database, or for handlers that run outside transactions. Real SQLite files throughout.
 */
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import knex from 'knex';
import pg from 'pg';
import { IdempotencyGuard } from '@webhook-idempotency/core';
import {
  createInboxWorker,
  type InboxEvent,
  type InboxWorkerOptions,
} from '@webhook-idempotency/core/inbox';
import { createInboxConsumer } from '@webhook-idempotency/core/adapter';
import { InboxSchema, Schema, SqlInbox, SqlStore, type SqlConnection } from '../../src';
import { fromDrizzle } from '../../src/drizzle';
import { pgDatabase, sqliteFile } from '../helpers/databases';

const handlers = { stripe: async () => ({ ok: true }) };

/** The `warning` events a worker over `inbox` and `receipts` reports while it is built. */
function warningsOf(inbox: SqlInbox, receipts: { store: object } | { guard: object }) {
  const events: InboxEvent[] = [];
  const options = {
    inbox,
    ...receipts,
    handlers,
    onEvent: (event: InboxEvent) => events.push(event),
  };
  createInboxWorker(options as InboxWorkerOptions<unknown>);
  return events.filter((event) => event.type === 'warning');
}

const sharedWarning = {
  type: 'warning',
  code: 'SQLITE_SHARED_CONNECTION',
  message: expect.stringMatching(/acknowledgement\) waits for the handlers[\s\S]*file of its own/),
};

async function openFile(db: SqlConnection): Promise<void> {
  await Schema.createTable(db);
  await InboxSchema.createTable(db);
}

describe('one SQLite connection for the deliveries and the receipts: a warning when built', () => {
  it('one better-sqlite3 Database on a file: the worker warns once, and the warning is true (the acknowledgement waits for a handler)', async () => {
    const db = new Database(sqliteFile('one-handle'));
    db.pragma('journal_mode = WAL');
    try {
      await openFile(db);
      db.exec('CREATE TABLE effects (id TEXT PRIMARY KEY)');
      const inbox = new SqlInbox(db);
      const store = new SqlStore(db);
      const order: string[] = [];
      let inside!: () => void;
      const handlerInside = new Promise<void>((resolve) => (inside = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const events: InboxEvent[] = [];
      const worker = createInboxWorker({
        inbox,
        store,
        handlers: {
          stripe: async (delivery, { transaction }) => {
            (transaction as Database.Database)
              .prepare('INSERT INTO effects (id) VALUES (?)')
              .run(delivery.externalId);
            order.push('handler wrote');
            inside();
            await released;
            order.push('handler released');
          },
        },
        onEvent: (event) => void events.push(event),
      });
      // Reported as the worker was built, before it ran anything.
      expect(events).toEqual([sharedWarning]);

      const deliver = (externalId: string) =>
        inbox.enqueue({
          provider: 'stripe',
          externalId,
          orderingKey: null,
          headers: {},
          body: Buffer.from('{}'),
        });
      await deliver('evt_first');
      const running = worker.runOnce();
      await handlerInside;
      const accepted = deliver('evt_during').then(() => order.push('accepted'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      await Promise.all([running, accepted]);
      expect(order).toEqual(['handler wrote', 'handler released', 'accepted']);
      expect(events).toEqual([sharedWarning, expect.objectContaining({ type: 'processed' })]);
    } finally {
      db.close();
    }
  });

  it('one knex instance, and one Drizzle database, over a SQLite file: the same warning', async () => {
    const viaKnex = knex({
      client: 'better-sqlite3',
      connection: { filename: sqliteFile('one-knex') },
      useNullAsDefault: true,
    });
    const client = new Database(sqliteFile('one-drizzle'));
    try {
      await openFile(viaKnex);
      expect(warningsOf(new SqlInbox(viaKnex), { store: new SqlStore(viaKnex) })).toEqual([
        sharedWarning,
      ]);
      const connection = fromDrizzle(drizzle(client));
      await openFile(connection);
      expect(warningsOf(new SqlInbox(connection), { store: new SqlStore(connection) })).toEqual([
        sharedWarning,
      ]);
      // Another Drizzle database over the same Database, or the Database itself: one connection still.
      const other = fromDrizzle(drizzle(client));
      expect(warningsOf(new SqlInbox(client), { store: new SqlStore(other) })).toEqual([
        sharedWarning,
      ]);
    } finally {
      await viaKnex.destroy();
      client.close();
    }
  });

  it('a queue consumer over one Database warns too', async () => {
    const db = new Database(sqliteFile('one-consumer'));
    try {
      await openFile(db);
      const events: InboxEvent[] = [];
      createInboxConsumer({
        inbox: new SqlInbox(db),
        store: new SqlStore(db),
        handlers,
        onEvent: (event) => void events.push(event),
      });
      expect(events).toEqual([sharedWarning]);
    } finally {
      db.close();
    }
  });
});

describe('no warning where the acknowledgement does not wait for handlers', () => {
  it('the documented setup: the deliveries in a file of their own', async () => {
    const file = sqliteFile('two-files');
    const appDb = new Database(file);
    const inboxDb = new Database(`${file}.inbox`);
    try {
      await Schema.createTable(appDb);
      await InboxSchema.createTable(inboxDb);
      expect(warningsOf(new SqlInbox(inboxDb), { store: new SqlStore(appDb) })).toEqual([]);
    } finally {
      appDb.close();
      inboxDb.close();
    }
  });

  it('handlers outside transactions on one Database, and one PostgreSQL pool (row locks)', async () => {
    const db = new Database(sqliteFile('one-handle-plain'));
    const pool = new pg.Pool({ connectionString: await pgDatabase('wi_inbox_one_connection') });
    try {
      await openFile(db);
      const guard = new IdempotencyGuard(new SqlStore(db), { staleAfterSeconds: 30 });
      expect(warningsOf(new SqlInbox(db), { guard })).toEqual([]);
      await openFile(pool);
      expect(warningsOf(new SqlInbox(pool), { store: new SqlStore(pool) })).toEqual([]);
    } finally {
      db.close();
      await pool.end();
    }
  });
});
