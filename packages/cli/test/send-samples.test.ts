/**
 * Every sample `send` ships is a delivery its preset accepts: an Express app with the GitHub,
 * Shopify, Telegram, Payme, Click and Uzum presets on a SQLite file store, on a real port; each
 * sample is sent with `--retry` through the command (helpers/cli.ts): the handler ran once for it, and
 * the retry was answered as a replay (Payme's CheckPerformTransaction and Uzum's check are read-only:
 * their presets pass them through, so they run each time).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import Database from 'better-sqlite3';
import express, { type RequestHandler } from 'express';
import { SAMPLES } from '../src/send/samples';
import { cli } from './helpers/cli';

const SECRETS: Record<string, string> = {
  github: 'gh-secret',
  shopify: 'shpss_secret',
  telegram: 'tg-secret-token',
  payme: 'cash-desk-key',
  click: 'click-secret',
  uzum: 'merchant:uzum-password',
};

let db: Database.Database;
let server: Server;
let base: string;
const runs = new Map<string, number>();

beforeAll(async () => {
  db = new Database(sqliteFile('send-samples'));
  await Schema.createTable(db);
  const store = new SqlStore(db);
  const guards: Record<string, RequestHandler> = {
    github: idempotent({ store, preset: providers.github({ secret: SECRETS.github! }) }),
    shopify: idempotent({ store, preset: providers.shopify({ secret: SECRETS.shopify! }) }),
    telegram: idempotent({
      store,
      preset: providers.telegram({ botId: 123456789, secretToken: SECRETS.telegram! }),
    }),
    payme: idempotent({ store, preset: providers.payme({ password: SECRETS.payme! }) }),
    click: idempotent({ store, preset: providers.click({ secretKey: SECRETS.click! }) }),
    uzum: idempotent({
      store,
      preset: providers.uzum({ username: 'merchant', password: 'uzum-password' }),
    }),
  };
  const app = express();
  app.use(express.json({ verify: saveRawBody }));
  app.use(express.urlencoded({ extended: false, verify: saveRawBody }));
  app.post(
    ['/webhooks/:preset', '/webhooks/:preset/:operation'],
    (req, res, next) => {
      const guard = guards[req.params.preset as string];
      if (!guard) return res.status(404).end();
      guard(req, res, next);
    },
    (req, res) => {
      const action = { '0': 'prepare', '1': 'complete' }[String(req.body.action)];
      const label =
        req.get('x-github-event') ??
        req.get('x-shopify-topic') ??
        req.params.operation ??
        req.body.method ??
        action ??
        (req.body.message ? 'message' : 'unknown');
      const name = `${req.params.preset}:${label}`;
      runs.set(name, (runs.get(name) ?? 0) + 1);
      res.json({ ok: true });
    },
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  db.close();
});

/** Read-only calls the presets pass through (no receipt): they run each time, as they should. */
const READ_ONLY = new Set(['payme:CheckPerformTransaction', 'uzum:check']);

const cases = Object.entries(SAMPLES)
  .filter(([preset]) => preset !== 'stripe') // send.test.ts
  .flatMap(([preset, events]) => Object.keys(events).map((event) => [preset, event] as const));

it.each(cases)(
  '%s %s: accepted by its preset; run once and its retry replayed (read-only calls: passed through)',
  async (preset, event) => {
    const sent = await cli([
      'send',
      preset,
      `${base}/${preset}`,
      '--secret',
      SECRETS[preset]!,
      '--event',
      event,
      '--retry',
      '--json',
    ]);
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    const { answers } = JSON.parse(sent.stdout);
    const passedThrough = READ_ONLY.has(`${preset}:${event}`);
    expect(answers.map((a: { replayed: boolean }) => a.replayed)).toEqual([false, !passedThrough]);
    expect(runs.get(`${preset}:${event}`)).toBe(passedThrough ? 2 : 1);
  },
);
