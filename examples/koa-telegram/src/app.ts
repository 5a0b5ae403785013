/**
 * @module A Telegram bot webhook on Koa. The Telegram preset checks the secret-token header before
 * any claim and keys receipts on `botId:update_id`. Each `message` update is applied once by its
 * route: the message is stored and the chat's counter incremented inside the guard's transaction.
 * Updates of other kinds are answered 200 with nothing stored.
 */
import type { Update } from '@grammyjs/types';
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import * as providers from '@webhook-idempotency/providers';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotent } from '@webhook-idempotency/koa';
import { Schema, SqlStore } from '@webhook-idempotency/sql';

/** Options of {@link createBotApp}. */
export interface BotAppOptions {
  /** SQLite file (created if missing). */
  file: string;
  /** The bot's numeric id: the digits before the colon of its token. */
  botId: number;
  /** The `secret_token` given to setWebhook. */
  secretToken: string;
}

/**
 * Each update kind (the preset's `eventType(request)`: `message`, `edited_message`…) to the update
 * that carries it, from the Bot API types grammY publishes (`@grammyjs/types`; Telegram publishes
 * none). The preset's own map only knows `update_id`.
 */
type TelegramUpdates = {
  [Kind in Exclude<keyof Update, 'update_id'>]: Update & Required<Pick<Update, Kind>>;
};

/** The app plus its database, for tests. */
export interface BotApp {
  app: Koa;
  db: Database.Database;
  close(): void;
}

/** Builds the Koa app with `POST /telegram/webhook`. */
export async function createBotApp(options: BotAppOptions): Promise<BotApp> {
  // The store's connection holds the guard's transaction; the app reads on its own (see the
  // payment-webhook example for why there are two).
  const storeDb = new Database(options.file);
  const db = new Database(options.file);
  for (const conn of [storeDb, db]) {
    conn.pragma('journal_mode = WAL');
    conn.pragma('busy_timeout = 5000');
  }
  await Schema.createTable(storeDb);
  db.exec(`
    CREATE TABLE IF NOT EXISTS messages (chat_id INTEGER NOT NULL, message_id INTEGER NOT NULL, text TEXT, PRIMARY KEY (chat_id, message_id));
    CREATE TABLE IF NOT EXISTS chat_stats (chat_id INTEGER PRIMARY KEY, messages INTEGER NOT NULL);
  `);

  const store = new SqlStore(storeDb);
  // Each update kind its handler, typed by grammY's Bot API types; an update of any other kind is
  // answered 200 before any claim, nothing stored or run.
  const telegram = routes(
    providers.telegram<TelegramUpdates>({ botId: options.botId, secretToken: options.secretToken }),
    {
      message: (update, context) => {
        const { message } = update; // Message & Update.NonChannel
        const tx = requireTransaction(context, store); // better-sqlite3's Database
        tx.prepare('INSERT INTO messages (chat_id, message_id, text) VALUES (?, ?, ?)').run(
          message.chat.id,
          message.message_id,
          message.text ?? null,
        );
        // Not idempotent by itself: exactly why the guard is there.
        tx.prepare(
          'INSERT INTO chat_stats (chat_id, messages) VALUES (?, 1) ON CONFLICT (chat_id) DO UPDATE SET messages = messages + 1',
        ).run(message.chat.id);
        return { ok: true }; // the answer: 200 JSON, stored, replayed
      },
    },
  );
  const router = new Router();
  router.post(
    '/telegram/webhook',
    bodyParser(), // keeps the text it parsed as ctx.request.rawBody
    // The route set answers every request itself: nothing after it runs.
    idempotent({ store, preset: telegram, transactional: true }),
  );

  const app = new Koa();
  app.use(router.routes());
  return {
    app,
    db,
    close() {
      db.close();
      storeDb.close();
    },
  };
}
