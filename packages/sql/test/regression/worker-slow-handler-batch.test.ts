/**
 * Regression: the inbox worker put the deliveries of one claim in as few batches as hold them, and
 * a batch runs its handlers one after another in one transaction. Five deliveries claimed together
 * with slow handlers and eight idle lanes became one batch: four of them waited for the first
 * handler to end before they started (twice the handler time), while seven lanes sat idle. What a
 * batch has not started now leaves it as soon as its transaction has run `groupWindowMs`, even
 * while a handler still runs, and the free lanes run it at once.
 *
 * Shown by overlap, never by speed: each handler waits at a barrier that opens only once all five
 * have started; a handler that waits longer than a generous bound fails, so the test fails. On a
 * connection that runs one transaction at a time (a SQLite file on one handle) the lanes take
 * turns on it by design: there each delivery runs once, in a transaction of its own, never inside
 * another's. On PostgreSQL, MariaDB and a SQLite file, with the worker's defaults.
 */
import {
  createInboxWorker,
  type InboxEvent,
  type InboxHandler,
} from '@webhook-idempotency/core/inbox';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { InboxSchema, Schema, type SqlConnection, SqlInbox, SqlStore } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import { mysqlDatabase, pgDatabase, sqliteFile } from '../helpers/databases';
import { runOn } from '../helpers/kinds';

/** What a kind of connection can do. */
interface Capabilities {
  /** Runs several transactions at once (a pool); a SQLite handle runs one at a time. */
  readonly concurrentTransactions: boolean;
}

type Opened = { readonly db: SqlConnection; close(): Promise<void> };

/** Pools wide enough for five transactions at once, plus the worker's claims. */
const kinds: Array<[string, () => Promise<Opened>, Capabilities]> = [
  [
    'pg Pool, PostgreSQL',
    async () => {
      const db = new pg.Pool({
        connectionString: await pgDatabase('wi_slow_batch_pg'),
        max: 10,
      });
      return { db, close: () => db.end() };
    },
    { concurrentTransactions: true },
  ],
  [
    'mysql2 pool, MariaDB',
    async () => {
      const db = mysql.createPool({
        uri: await mysqlDatabase('wi_slow_batch_mysql'),
        connectionLimit: 10,
      });
      return { db, close: () => db.end() };
    },
    { concurrentTransactions: true },
  ],
  [
    'better-sqlite3 file',
    async () => {
      const db = new Database(sqliteFile('slow-batch'));
      db.pragma('journal_mode = WAL');
      return { db, close: async () => void db.close() };
    },
    { concurrentTransactions: false },
  ],
];

const DELIVERIES = 5;
/** How long a handler waits for the others to start before it fails: a liveness bound, not a speed. */
const BARRIER_WAIT_MS = 10_000;
/** A handler on a one-transaction connection: longer than `groupWindowMs` (20 ms by default). */
const SLOW_MS = 60;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens when `parties` have arrived; an arrival that waits more than `waitMs` rejects. */
function barrier(parties: number, waitMs: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    get arrived() {
      return arrived;
    },
    async arrive(): Promise<void> {
      if (++arrived === parties) open();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`only ${arrived} of ${parties} handlers had started after ${waitMs} ms`),
            ),
          waitMs,
        );
      });
      try {
        await Promise.race([opened, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

describe.each(kinds)('slow handlers claimed together (%s)', (_name, open, capabilities) => {
  let opened: Opened;
  let n = 0;
  let inbox: SqlInbox;
  let store: SqlStore;
  let effects: string;

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    n++;
    await InboxSchema.createTable(opened.db, { table: `inbox_${n}` });
    await Schema.createTable(opened.db, { table: `receipts_${n}` });
    effects = `effects_${n}`;
    await createExecutor(opened.db, 10_000).query(
      `CREATE TABLE ${effects} (id VARCHAR(200) NOT NULL)`,
      [],
    );
    inbox = new SqlInbox(opened.db, { table: `inbox_${n}` });
    store = new SqlStore(opened.db, { table: `receipts_${n}` });
  });

  const effectRows = async () => {
    const { rows } = await createExecutor(opened.db, 10_000).query(
      `SELECT id FROM ${effects} ORDER BY id`,
      [],
    );
    return rows.map((row) => String(row.id));
  };

  it('no delivery waits behind another: with lanes free, all five run at once; each commits once', async () => {
    const ids = Array.from({ length: DELIVERIES }, (_, i) => `evt_${i + 1}`);
    for (const id of ids)
      await inbox.enqueue({
        provider: 'stripe',
        externalId: id,
        orderingKey: null,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ id })),
      });
    const gate = barrier(DELIVERIES, BARRIER_WAIT_MS);
    let running = 0;
    let most = 0;
    const transactions = new Set<unknown>();
    const handler: InboxHandler<unknown> = async (delivery, { transaction }) => {
      most = Math.max(most, ++running);
      transactions.add(transaction);
      try {
        if (capabilities.concurrentTransactions) await gate.arrive();
        else await sleep(SLOW_MS);
        await runOn(transaction, `INSERT INTO ${effects} (id) VALUES (?)`, [delivery.externalId]);
      } finally {
        running--;
      }
      return { booked: delivery.externalId };
    };
    const events: InboxEvent[] = [];
    const worker = createInboxWorker({
      inbox,
      store: store as never,
      handlers: { stripe: handler },
      // What it reports while it runs (on SQLite it also warns when built: regression/sqlite-inbox-one-connection).
      onEvent: (event) => void (event.type !== 'warning' && events.push(event)),
    });

    expect(await worker.runOnce()).toBe(DELIVERIES);

    // Each in a transaction of its own; on a pool all of them at the same moment, on one SQLite
    // handle one at a time (never a delivery run inside another's transaction).
    expect(transactions.size).toBe(DELIVERIES);
    expect(most).toBe(capabilities.concurrentTransactions ? DELIVERIES : 1);
    expect(events.map((e) => e.type)).toEqual(ids.map(() => 'processed'));
    expect(await effectRows()).toEqual(ids);
    expect((await inbox.list()).map((d) => [d.externalId, d.status, d.failures])).toEqual(
      ids.map((id) => [id, 'done', 0]),
    );
  });
});
