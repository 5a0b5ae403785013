/**
 * @module docs/stores.md and packages/sql/README.md: SqlStore over Node's built-in `node:sqlite`
 * (Node ≥ 22.16; no native module to compile). Run by test/node-sqlite.test.ts on those Node lines.
 */
// #region node-sqlite
import { DatabaseSync } from 'node:sqlite';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
// #endregion node-sqlite

/** One Telegram update; `DATABASE_FILE` names a SQLite file with a `messages` table. */
export async function nodeSqliteExample(): Promise<{ db: DatabaseSync; isReplay: boolean }> {
  // #region node-sqlite
  const db = new DatabaseSync(process.env.DATABASE_FILE ?? 'app.db', { timeout: 5_000 }); // wait on a locked file
  db.exec('PRAGMA journal_mode = WAL'); // recommended when several processes share the file
  await Schema.createTable(db);
  const guard = new IdempotencyGuard(new SqlStore(db), { transactional: true });

  const update = { update_id: 123456790, message: { text: '/help' } };
  const outcome = await guard.run(
    new RequestKey('telegram', update.update_id),
    async ({ transaction }) => {
      // transaction: the same DatabaseSync, inside BEGIN IMMEDIATE
      transaction!
        .prepare('INSERT INTO messages (id, text) VALUES (?, ?)')
        .run(update.update_id, update.message.text);
      return 'ok';
    },
  );
  // #endregion node-sqlite
  return { db, isReplay: outcome.isReplay };
}
