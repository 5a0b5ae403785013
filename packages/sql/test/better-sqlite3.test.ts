/** SqlStore over a raw better-sqlite3 Database on a file: the whole store contract. */
import Database from 'better-sqlite3';
import { sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (better-sqlite3 file)', async () => {
  const db = new Database(sqliteFile('raw'));
  db.pragma('journal_mode = WAL');
  return { db, close: async () => void db.close() };
});

// The handle is the Database itself, inside BEGIN IMMEDIATE; its API is synchronous.
guardCases(db, async (database, id) => database.prepare('INSERT INTO orders (id) VALUES (?)').run(id));
