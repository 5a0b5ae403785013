/**
 * @module A GitHub webhook on Express whose data layer is Drizzle over better-sqlite3. The GitHub
 * preset checks `X-Hub-Signature-256` on the raw bytes before any claim and keys receipts on
 * `X-GitHub-Delivery`; in transactional mode the push is recorded and the repository's counter
 * incremented through the Drizzle database the guard hands the route, inside the receipt's
 * `BEGIN IMMEDIATE`, so a redelivery, or a crash half-way, never counts a push twice.
 */
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import express from 'express';
import { requireTransaction } from '@webhook-idempotency/core';
import { routes } from '@webhook-idempotency/core/routes';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import type { GitHubEvents } from '@webhook-idempotency/providers/types/github';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { fromDrizzle } from '@webhook-idempotency/sql/drizzle';
// The app's tables, declared for Drizzle as any Drizzle app declares them.

/** One row per push delivery the app applied. */
const pushes = sqliteTable('pushes', {
  delivery: text('delivery').primaryKey(),
  repository: text('repository').notNull(),
  commits: integer('commits').notNull(),
});

/** Commits counted per repository: an increment, so not idempotent by itself. */
const repositoryStats = sqliteTable('repository_stats', {
  repository: text('repository').primaryKey(),
  commits: integer('commits').notNull(),
});

/** The DDL of the two tables (a real app keeps it in drizzle-kit migrations). */
const DDL = `
  CREATE TABLE IF NOT EXISTS pushes (delivery TEXT PRIMARY KEY, repository TEXT NOT NULL, commits INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS repository_stats (repository TEXT PRIMARY KEY, commits INTEGER NOT NULL);
`;

/** Options of {@link createGitHubApp}. */
export interface GitHubAppOptions {
  /** The SQLite file (created if missing). */
  file: string;
  /** The webhook's secret, as set in the repository's webhook settings. */
  secret: string;
}

/** The app, what it has counted, and how to close it. */
export interface GitHubApp {
  app: express.Express;
  /** Commits counted per repository, read on the app's own connection. */
  stats(): Array<{ repository: string; commits: number }>;
  /** How many rows `table` holds. */
  count(table: 'pushes' | 'webhook_receipts'): number;
  close(): void;
}

/** Builds the app with `POST /github/webhook`. */
export async function createGitHubApp(options: GitHubAppOptions): Promise<GitHubApp> {
  // One connection for the store (it holds the handler's transaction), one for the app's reads.
  const storeFile = new Database(options.file);
  const readFile = new Database(options.file);
  for (const file of [storeFile, readFile]) {
    file.pragma('journal_mode = WAL');
    file.pragma('busy_timeout = 5000');
  }
  storeFile.exec(DDL);
  const connection = fromDrizzle(drizzle(storeFile));
  await Schema.createTable(connection);
  const store = new SqlStore(connection);
  // Each `X-GitHub-Event` its handler, typed with GitHub's own payloads
  // (`@octokit/openapi-webhooks-types`, types only); other events are answered 200, nothing stored.
  const github = routes(providers.github<GitHubEvents>({ secret: options.secret }), {
    push: (push, context) => {
      const repository = push.repository.full_name;
      const commits = push.commits.length;
      // tx: the Drizzle database over the store's connection, inside the receipt's transaction,
      // typed from the store.
      const tx = requireTransaction(context, store);
      tx.insert(pushes).values({ delivery: context.key.externalId, repository, commits }).run();
      tx.insert(repositoryStats)
        .values({ repository, commits })
        .onConflictDoUpdate({
          target: repositoryStats.repository,
          set: { commits: sql`${repositoryStats.commits} + ${commits}` },
        })
        .run();
      return { repository, commits }; // the answer: 200 JSON, stored, replayed
    },
  });

  const app = express();
  app.post(
    '/github/webhook',
    express.json({ verify: saveRawBody }), // the signature is over the bytes as sent
    idempotent({ store, preset: github, transactional: true }),
  );

  const reads = drizzle(readFile);
  return {
    app,
    stats: () => reads.select().from(repositoryStats).all(),
    count: (table) =>
      (readFile.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
    close() {
      readFile.close();
      storeFile.close();
    },
  };
}
