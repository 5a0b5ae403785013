/** @module docs/stores.md and packages/sql/README.md: SqlStore over a better-sqlite3 Database. Run by test/stores.test.ts. */
// #region sqlite
import Database from 'better-sqlite3';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion sqlite

/** One Telegram update; `DATABASE_FILE` names a SQLite file with a `messages` table. */
export async function sqliteExample(): Promise<{ db: Database.Database; isReplay: boolean }> {
  // #region sqlite
  const db = new Database(process.env.DATABASE_FILE ?? 'app.db'); // waits up to `timeout` (default 5 s) on a locked file
  db.pragma('journal_mode = WAL'); // recommended when several processes share the file
  await Schema.createTable(db);
  const guard = new IdempotencyGuard(new SqlStore(db), { transactional: true });

  const update = { update_id: 123456789, message: { text: '/start' } };
  const outcome = await guard.run(
    new RequestKey('telegram', update.update_id),
    async ({ transaction }) => {
      // transaction: the same Database, inside BEGIN IMMEDIATE (its API is synchronous)
      transaction!
        .prepare('INSERT INTO messages (id, text) VALUES (?, ?)')
        .run(update.update_id, update.message.text);
      return 'ok';
    },
  );
  // #endregion sqlite
  return { db, isReplay: outcome.isReplay };
}
