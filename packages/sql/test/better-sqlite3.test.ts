/** SqlStore over a raw better-sqlite3 Database on a file: the whole store contract. */
import Database from 'better-sqlite3';
import { SqlStore } from '../src';
import { sqliteFile } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (better-sqlite3 file)', async () => {
  const db = new Database(sqliteFile('raw'));
  db.pragma('journal_mode = WAL');
  return { db, close: async () => void db.close() };
});

// The handle is the Database itself, inside BEGIN IMMEDIATE; its API is synchronous.
guardCases(db, async (database, id) =>
  database.prepare('INSERT INTO orders (id) VALUES (?)').run(id),
);

describe('one synchronous connection', () => {
  it('a claim made while a transaction is open waits for it and is not rolled back with it', async () => {
    const store = new SqlStore(db(), { table: 'receipts_conformance' });
    const key = { provider: 'mutex', externalId: 'evt_1' };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const transaction = store.withTransaction(async () => {
      await gate;
      throw new Error('roll back');
    });
    let claimed = false;
    const claim = store.claim(key, { now: 0, fingerprint: null }).then((result) => {
      claimed = true;
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(claimed).toBe(false);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect((await claim).won).toBe(true);
    expect(await store.find(key, { now: 0 })).toMatchObject({ status: 'processing' });
  });
});
