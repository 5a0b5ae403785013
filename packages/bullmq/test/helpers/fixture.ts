/**
 * The databases the BullMQ tests run on (a PostgreSQL database, a MariaDB database and a SQLite
 * file, each of its own), with fresh inbox, receipts and business tables per test, and the
 * handler that books one business row per delivery through the receipt's transaction.
 */
import type { InboxHandler } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import {
  mysqlDatabase,
  pgDatabase,
  sqliteFile,
} from '@webhook-idempotency/sql/test/helpers/databases';
import {
  connect,
  type Connected,
  type Target,
} from '@webhook-idempotency/sql/test/helpers/targets';

/** `[name, open a target]` for each database the bridge is tested on; `tag` keeps test files apart. */
export function targets(tag: string): Array<[string, () => Promise<Target>]> {
  return [
    ['PostgreSQL', async () => ({ dialect: 'postgres', url: await pgDatabase(`wi_${tag}`) })],
    ['MariaDB', async () => ({ dialect: 'mysql', url: await mysqlDatabase(`wi_${tag}`) })],
    ['SQLite file', async () => ({ dialect: 'sqlite', url: sqliteFile(tag) })],
  ];
}

/** The table names of one test. */
export interface Tables {
  readonly inbox: string;
  readonly receipts: string;
  readonly effects: string;
}

/** One test's tables on an open connection. */
export interface Fixture {
  readonly tables: Tables;
  readonly inbox: SqlInbox;
  readonly store: SqlStore;
  /** Stores a Stripe-like delivery whose body names `externalId`. */
  enqueue(externalId: string): Promise<boolean>;
  /** The business rows, by id: one per handler run that committed. */
  effects(): Promise<Array<{ id: string; writtenBy: number }>>;
}

let n = 0;

/** Creates the next test's tables (`<tag>_inbox_<n>`, …) on `connected`. */
export async function fixture(connected: Connected, tag: string): Promise<Fixture> {
  n++;
  const tables = {
    inbox: `${tag}_inbox_${n}`,
    receipts: `${tag}_receipts_${n}`,
    effects: `${tag}_effects_${n}`,
  };
  await InboxSchema.createTable(connected.db, { table: tables.inbox });
  await Schema.createTable(connected.db, { table: tables.receipts });
  // No key on purpose: a second run that committed would show as a second row, not an error.
  await connected.sql.query(
    `CREATE TABLE ${tables.effects} (id VARCHAR(200) NOT NULL, written_by INTEGER NOT NULL)`,
    [],
  );
  return fixtureOf(connected, tables);
}

/** The inbox, receipts and business rows of tables that exist (a child process opens them so). */
export function fixtureOf(connected: Connected, tables: Tables): Fixture {
  const inbox = new SqlInbox(connected.db, { table: tables.inbox });
  return {
    tables,
    inbox,
    store: new SqlStore(connected.db, { table: tables.receipts }),
    enqueue: (externalId) =>
      inbox.enqueue({
        provider: 'stripe',
        externalId,
        orderingKey: null,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ id: externalId })),
      }),
    async effects() {
      const { rows } = await connected.sql.query(
        `SELECT id, written_by FROM ${tables.effects} ORDER BY id, written_by`,
        [],
      );
      return rows.map((row) => ({ id: String(row.id), writtenBy: Number(row.written_by) }));
    },
  };
}

/** A handler booking one business row (`id`, this process) through the receipt's transaction. */
export function book(connected: Connected, tables: Tables): InboxHandler<unknown> {
  return async (delivery, { transaction }) => {
    const { id } = JSON.parse(delivery.body.toString('utf8')) as { id: string };
    await connected.sql.query(
      `INSERT INTO ${tables.effects} (id, written_by) VALUES (?, ?)`,
      [id, process.pid],
      transaction,
    );
    return { booked: id };
  };
}

export { connect, type Connected, type Target };
