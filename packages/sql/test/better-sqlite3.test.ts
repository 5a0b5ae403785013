/** SqlStore over a raw better-sqlite3 Database on a file: the whole store contract. */
import Database from 'better-sqlite3';
import { sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';

sqlConformance('SqlStore (better-sqlite3 file)', async () => {
  const db = new Database(sqliteFile('raw'));
  db.pragma('journal_mode = WAL');
  return { db, close: async () => void db.close() };
});
