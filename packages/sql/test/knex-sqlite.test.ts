/** SqlStore over a knex instance on a SQLite file (better-sqlite3 driver): the whole store contract. */
import Database from 'better-sqlite3';
import knex from 'knex';
import { SqlStore } from '../src';
import { sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

let file = '';
const db = sqlConformance('SqlStore (knex, SQLite file)', async () => {
  file = sqliteFile('knex');
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
  });
  return { db, close: () => db.destroy() };
});

// The handle is a Knex.Transaction: the query builder works on it.
guardCases(db, (transaction, id) => transaction('orders').insert({ id }));

it('a transaction takes the write lock at once (knex begins DEFERRED): other processes wait at BEGIN', async () => {
  const other = new Database(file, { timeout: 0 });
  try {
    await new SqlStore(db(), { table: 'receipts_conformance' }).withTransaction(async () => {
      expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(
        expect.objectContaining({ code: 'SQLITE_BUSY' }),
      );
    });
    other.exec('BEGIN IMMEDIATE');
    other.exec('ROLLBACK');
  } finally {
    other.close();
  }
});
