/**
 * SqlStore over raw mysql2 pools: the whole store contract on the promise API (default flags, so
 * affectedRows counts *matched* rows) and on the callback API with FOUND_ROWS off (affectedRows
 * counts *changed* rows). Both must agree: every fenced UPDATE changes what it matches.
 */
import mysql from 'mysql2';
import mysqlPromise from 'mysql2/promise';
import { mysqlDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';

sqlConformance('SqlStore (mysql2 promise pool, MariaDB)', async () => {
  const db = mysqlPromise.createPool({ uri: await mysqlDatabase('wi_mysql2_promise'), connectionLimit: 10 });
  return { db, close: () => db.end() };
});

sqlConformance('SqlStore (mysql2 callback pool without FOUND_ROWS, MariaDB)', async () => {
  const db = mysql.createPool({ uri: await mysqlDatabase('wi_mysql2_callback'), connectionLimit: 10, flags: ['-FOUND_ROWS'] });
  return { db, close: () => new Promise<void>((resolve, reject) => db.end((error) => (error ? reject(error) : resolve()))) };
});
