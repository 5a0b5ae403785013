/** SqlStore over a knex instance on PostgreSQL: the whole store contract. */
import knex from 'knex';
import { connectionOf, pgDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (knex, PostgreSQL)', async () => {
  const db = knex({
    client: 'pg',
    connection: connectionOf(await pgDatabase('wi_knex_pg')),
    pool: { min: 0, max: 10 },
  });
  return { db, close: () => db.destroy() };
});

// The handle is a Knex.Transaction: the query builder works on it.
guardCases(db, (transaction, id) => transaction('orders').insert({ id }));
