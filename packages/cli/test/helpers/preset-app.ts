/**
 * The app the `send` end-to-end tests post to: Express on a real port, a route per preset name
 * (`/webhooks/<name>`) guarded by `idempotent()` on a SQLite file store, and a handler that counts
 * its runs per preset and answers `{ ok: true }`. Presets are added once the base URL is known
 * (URL-signed presets need it).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import Database from 'better-sqlite3';
import express, { type RequestHandler } from 'express';

export interface PresetApp {
  /** `http://127.0.0.1:<port>/webhooks`. */
  readonly base: string;
  /** Handler runs per preset name. */
  readonly runs: Map<string, number>;
  /** Guards `/webhooks/<name>` with `preset`. */
  add(name: string, preset: unknown): void;
  close(): Promise<void>;
}

/** Starts the app on a SQLite file named after `file`. */
export async function startPresetApp(file: string): Promise<PresetApp> {
  const db = new Database(sqliteFile(file));
  await Schema.createTable(db);
  const store = new SqlStore(db);
  const guards: Record<string, RequestHandler> = {};
  const runs = new Map<string, number>();
  const app = express();
  app.use(express.json({ verify: saveRawBody }));
  app.use(express.urlencoded({ extended: false, verify: saveRawBody }));
  // Dropbox Sign posts a multipart form: its raw bytes kept, as docs/providers.md advises.
  app.use(express.raw({ type: 'multipart/form-data' }));
  app.post(
    '/webhooks/:preset',
    (req, res, next) => {
      const guard = guards[req.params.preset as string];
      if (!guard) return res.status(404).end();
      guard(req, res, next);
    },
    (req, res) => {
      const preset = req.params.preset as string;
      runs.set(preset, (runs.get(preset) ?? 0) + 1);
      res.json({ ok: true });
    },
  );
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    runs,
    add(name, preset) {
      guards[name] = idempotent({ store, preset } as Parameters<typeof idempotent>[0]);
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      db.close();
    },
  };
}
