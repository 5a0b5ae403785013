/**
 * @module A Telegram bot webhook on Koa. The Telegram preset checks the secret-token header before
 * any claim and keys receipts on `botId:update_id`. Each update is applied once: a message is
 * stored and the chat's counter incremented inside the guard's transaction.
 */
import type { Update } from '@grammyjs/types';
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import * as providers from '@webhook-idempotency/providers';
import type { EventOf } from '@webhook-idempotency/providers';
import { requireTransaction } from '@webhook-idempotency/core';
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
  const preset = providers.telegram<TelegramUpdates>({
    botId: options.botId,
    secretToken: options.secretToken,
  });
  const router = new Router();
  router.post(
    '/telegram/webhook',
    bodyParser(), // keeps the text it parsed as ctx.request.rawBody
    idempotent({
      store,
      preset,
      transactional: true,
    }),
    (ctx) => {
      const update: EventOf<typeof preset> = JSON.parse(ctx.request.rawBody); // the text it verified
      const tx = requireTransaction(ctx.state.idempotency, store); // better-sqlite3's Database
      const { message } = update; // Message & Update.NonChannel, on a `message` update
      if (message) {
        tx.prepare('INSERT INTO messages (chat_id, message_id, text) VALUES (?, ?, ?)').run(
          message.chat.id,
          message.message_id,
          message.text ?? null,
        );
        // Not idempotent by itself: exactly why the guard is there.
        tx.prepare(
          'INSERT INTO chat_stats (chat_id, messages) VALUES (?, 1) ON CONFLICT (chat_id) DO UPDATE SET messages = messages + 1',
        ).run(message.chat.id);
      }
      ctx.body = { ok: true };
    },
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
