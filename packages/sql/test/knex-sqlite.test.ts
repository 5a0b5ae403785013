/** SqlStore over a knex instance on a SQLite file (better-sqlite3 driver): the whole store contract. */
import knex from 'knex';
import { sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (knex, SQLite file)', async () => {
  const db = knex({ client: 'better-sqlite3', connection: { filename: sqliteFile('knex') }, useNullAsDefault: true });
  return { db, close: () => db.destroy() };
});

// The handle is a Knex.Transaction: the query builder works on it.
guardCases(db, (transaction, id) => transaction('orders').insert({ id }));
