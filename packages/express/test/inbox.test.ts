/**
 * `inbox(options)` on Express (issue 12): the shared inbox suite (packages/adapter-conformance),
 * then what is Express's own: a read handed on, the missing raw-body parser reaching the error
 * handler, and the options refused at construction.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as providers from '@webhook-idempotency/providers';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { running, runInboxConformance } from '@webhook-idempotency/adapter-conformance';
import { type ExpressInboxOptions, inbox } from '../src';

const SECRET = 'whsec_test_inbox';
let db: Database.Database;
let deliveries: SqlInbox;
let errors: unknown[];

function app(options: Partial<Parameters<typeof inbox>[0]> = {}) {
  const app = express();
  app.post(
    '/webhooks/stripe',
    express.raw({ type: '*/*' }),
    inbox({ inbox: deliveries, preset: providers.stripe({ secret: SECRET }), ...options }),
  );
  app.get('/webhooks/stripe', (_req, res) => res.send('a read'));
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    errors.push(error);
    res.status(500).send('error');
  };
  app.use(onError);
  return app;
}

beforeEach(async () => {
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'express-inbox-'));
  db = new Database(join(dir, 'inbox.db'));
  db.pragma('journal_mode = WAL');
  await InboxSchema.createTable(db);
  deliveries = new SqlInbox(db);
  errors = [];
});
afterEach(() => {
  if (db.open) db.close();
});

runInboxConformance({
  name: 'express 5',
  start: (options) => {
    const server = express();
    const endpoint = inbox(options as ExpressInboxOptions);
    const passed: express.RequestHandler = (_req, res) => {
      res.json({ passed: true });
    };
    server.post(['/hook', '/hook/:operation'], express.raw({ type: '*/*' }), endpoint, passed);
    // A provider's verification GET (Meta's, Okta's) is the endpoint's to answer.
    server.get('/hook', endpoint, passed);
    return running(server.listen(0, '127.0.0.1'));
  },
});

it('a read passes through to the next handler, nothing stored', async () => {
  expect((await request(app()).get('/webhooks/stripe')).text).toBe('a read');
  expect(await deliveries.list()).toEqual([]);
});

it('without a raw-body parser the setup error goes to the error handler; nothing is stored', async () => {
  const server = express();
  server.post(
    '/hook',
    express.json(),
    inbox({
      inbox: deliveries,
      provider: 'github',
      key: (req) => req.get('x-github-delivery'),
      verify: () => true,
    }),
  );
  server.use(((error, _req, res, _next) => {
    errors.push(error);
    res.status(500).send('error');
  }) as ErrorRequestHandler);
  const response = await request(server)
    .post('/hook')
    .set('x-github-delivery', 'd-1')
    .send({ action: 'opened' });
  expect(response.status).toBe(500);
  expect(errors).toEqual([expect.objectContaining({ code: 'ERR_IDEMPOTENCY_RAW_BODY_MISSING' })]);
  expect(await deliveries.list()).toEqual([]);
});

it('refuses, at construction, options that would store credentials or are unknown', () => {
  expect(() =>
    inbox({
      inbox: deliveries,
      preset: providers.stripe({ secret: SECRET }),
      headers: ['Authorization'],
    }),
  ).toThrow(expect.objectContaining({ option: 'headers' }));
  expect(() =>
    inbox({ inbox: deliveries, preset: providers.stripe({ secret: SECRET }), store: {} } as never),
  ).toThrow(expect.objectContaining({ option: 'store' }));
  expect(() =>
    inbox({
      inbox: deliveries,
      preset: providers.stripe({ secret: SECRET }),
      response: { status: 302 },
    }),
  ).toThrow(expect.objectContaining({ option: 'response' }));
  expect(() => inbox({} as never)).toThrow(expect.objectContaining({ option: 'inbox' }));
});
