/** SqlStore over a knex instance on MariaDB (mysql2 driver): the whole store contract. */
import knex from 'knex';
import { connectionOf, mysqlDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (knex, MariaDB)', async () => {
  const db = knex({
    client: 'mysql2',
    connection: connectionOf(await mysqlDatabase('wi_knex_mysql')),
    pool: { min: 0, max: 10 },
  });
  return { db, close: () => db.destroy() };
});

// The handle is a Knex.Transaction: the query builder works on it.
guardCases(db, (transaction, id) => transaction('orders').insert({ id }));
