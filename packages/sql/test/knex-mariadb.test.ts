/** SqlStore over a knex instance on MariaDB (mysql2 driver): the whole store contract. */
import knex from 'knex';
import { connectionOf, mysqlDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';

sqlConformance('SqlStore (knex, MariaDB)', async () => {
  const db = knex({ client: 'mysql2', connection: connectionOf(await mysqlDatabase('wi_knex_mysql')), pool: { min: 0, max: 10 } });
  return { db, close: () => db.destroy() };
});
