/**
 * Runs the core store conformance suite on a SqlStore over one connection: the table is created
 * once, emptied before every case, and "time passes" by shifting the stored timestamps back
 * (the database clock cannot be faked).
 */
import { runStoreConformance } from '@webhook-idempotency/core/testing';
import { Schema, SqlStore, type SqlConnection } from '../../src';
import { createExecutor } from '../../src/connections/detect';
import { dialects } from '../../src/dialects';
import type { Executor } from '../../src/connections/executor';

/** A connection opened for a test file, and how to close it. */
export interface Opened<Db extends SqlConnection = SqlConnection> {
  readonly db: Db;
  close(): Promise<void>;
}

/** Moves the store's time forward by `ms`: every claimed_at/finished_at goes `ms` into the past. */
export function shifter(db: SqlConnection, table: string): (ms: number) => Promise<void> {
  const executor: Executor = createExecutor(db, 10_000);
  const spec = dialects[executor.dialect];
  const t = spec.quote(table);
  const sql = `UPDATE ${t} SET claimed_at = ${spec.minusMs('claimed_at')}, finished_at = ${spec.minusMs('finished_at')}`;
  return async (ms) => {
    await executor.query(sql, [ms, ms]);
  };
}

/** Empties `table`. */
export async function truncate(db: SqlConnection, table: string): Promise<void> {
  const executor = createExecutor(db, 10_000);
  await executor.query(`DELETE FROM ${dialects[executor.dialect].quote(table)}`, []);
}

/**
 * Registers the suite for `name`: opens the connection before the file's tests, closes it after.
 * Returns a getter for the opened connection, for the file's own cases.
 */
export function sqlConformance<Db extends SqlConnection>(
  name: string,
  open: () => Promise<Opened<Db>>,
  table = 'receipts_conformance',
): () => Db {
  let opened: Opened<Db> | undefined;
  beforeAll(async () => {
    opened = await open();
    await Schema.createTable(opened.db, { table });
  });
  afterAll(async () => {
    await opened?.close();
  });
  const db = () => {
    if (!opened) throw new Error('connection not open yet');
    return opened.db;
  };
  runStoreConformance({
    name,
    async makeStore() {
      await truncate(db(), table);
      return { store: new SqlStore(db(), { table }), advance: shifter(db(), table) };
    },
  });
  return db;
}
