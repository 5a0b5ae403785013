/**
 * What the pg-boss bridge tests and their consumer processes share: one PostgreSQL database with
 * the inbox, the receipts, a business table without any unique key (so a doubled effect shows as
 * a second row), and a pg-boss schema; the booking handler writes in the receipt's transaction.
 */
import type { InboxHandler } from '@webhook-idempotency/core/inbox';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import pg from 'pg';
import { PgBoss } from 'pg-boss';

/** Names of one test's tables and queue. */
export interface Tables {
  readonly url: string;
  readonly suffix: string;
}

export const tablesOf = ({ suffix }: Tables) => ({
  inbox: `inbox_${suffix}`,
  receipts: `receipts_${suffix}`,
  effects: `effects_${suffix}`,
  queue: `webhooks_${suffix}`,
});

/** pg-boss with its checks every second, so an expired job is retried within the test. */
export function bossFor(url: string): PgBoss {
  return new PgBoss({
    connectionString: url,
    max: 4,
    superviseIntervalSeconds: 1,
    monitorIntervalSeconds: 1,
    schedule: false,
  });
}

export function open(tables: Tables) {
  const names = tablesOf(tables);
  const pool = new pg.Pool({ connectionString: tables.url, max: 18 });
  // An idle connection the server drops (the run's teardown stops it) is not this test's failure.
  pool.on('error', () => {});
  const inbox = new SqlInbox(pool, { table: names.inbox });
  const store = new SqlStore(pool, { table: names.receipts });
  /** Books the payment the delivery names: one row in the business table, in the receipt's transaction. */
  const book: InboxHandler<pg.PoolClient> = async (delivery, { transaction }) => {
    const { id } = JSON.parse(delivery.body.toString('utf8')) as { id: string };
    if (!transaction) throw new Error('the receipts store is not transactional');
    await transaction.query(`INSERT INTO ${names.effects} (id) VALUES ($1)`, [id]);
  };
  return { names, pool, inbox, store: store as SqlStore<pg.Pool>, book };
}
