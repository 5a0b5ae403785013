/**
 * SqlStore over raw mysql2 pools: the whole store contract on the promise API (default flags, so
 * affectedRows counts *matched* rows) and on the callback API with FOUND_ROWS off (affectedRows
 * counts *changed* rows). Both must agree: every fenced UPDATE changes what it matches.
 */
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import { mysqlDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const promiseDb = sqlConformance('SqlStore (mysql2 promise pool, MariaDB)', async () => {
  const db = mysqlPromise.createPool({
    uri: await mysqlDatabase('wi_mysql2_promise'),
    connectionLimit: 10,
  });
  return { db, close: () => db.end() };
});

const callbackDb = sqlConformance(
  'SqlStore (mysql2 callback pool without FOUND_ROWS, MariaDB)',
  async () => {
    const db = mysql.createPool({
      uri: await mysqlDatabase('wi_mysql2_callback'),
      connectionLimit: 10,
      flags: ['-FOUND_ROWS'],
    });
    return {
      db,
      close: () =>
        new Promise<void>((resolve, reject) =>
          db.end((error) => (error ? reject(error) : resolve())),
        ),
    };
  },
);

describe('promise pool', () => {
  // The handle is a mysql2/promise PoolConnection inside a transaction.
  guardCases(promiseDb, (connection, id) =>
    connection.query('INSERT INTO orders (id) VALUES (?)', [id]),
  );
});

describe('callback pool', () => {
  // The handle is a callback-API PoolConnection, like the pool the application passed.
  guardCases(
    callbackDb,
    (connection, id) =>
      new Promise((resolve, reject) => {
        connection.query('INSERT INTO orders (id) VALUES (?)', [id], (error) =>
          error ? reject(error) : resolve(undefined),
        );
      }),
  );
});
