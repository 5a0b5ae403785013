/**
 * `send` against a running app: an Express app with the Stripe preset on a SQLite file store,
 * listening on a real port; the command (its real entry point in a child process for the first send) signs a sample with the test kit and
 * POSTs it. The handler's effect happens once; `--retry` (the same event again, re-signed as
 * Stripe retries) is answered as a replay, and so is a later send of the same `--id`; a wrong
 * secret is refused by the preset and the command exits non-zero.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import Database from 'better-sqlite3';
import express from 'express';
import { ExitCode } from '../src';
import { cli } from './helpers/cli';

const SECRET = 'whsec_devloop_test';
let db: Database.Database;
let server: Server;
let url: string;
const effects: string[] = [];

beforeAll(async () => {
  db = new Database(sqliteFile('send'));
  await Schema.createTable(db);
  const store = new SqlStore(db);
  const app = express();
  app.use(express.json({ verify: saveRawBody }));
  app.post(
    '/webhooks/stripe',
    idempotent({ store, preset: providers.stripe({ secret: SECRET }) }),
    (req, res) => {
      effects.push(`${req.body.type}:${req.body.id}`);
      res.json({ booked: req.body.data.object.id });
    },
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  db.close();
});

it('the handler runs once; --retry is answered as a replay', async () => {
  const sent = await cli(['send', 'stripe', url, '--secret', SECRET, '--retry', '--json'], {
    process: true,
  });
  expect(sent).toMatchObject({ code: 0, stderr: '' });
  const report = JSON.parse(sent.stdout);
  expect(report).toMatchObject({ preset: 'stripe', event: 'payment_intent.succeeded' });
  expect(report.answers).toEqual([
    { status: 200, replayed: false, body: expect.stringMatching(/^\{"booked":"pi_/) },
    { status: 200, replayed: true, body: expect.stringMatching(/^\{"booked":"pi_/) },
  ]);
  expect(effects).toEqual([`payment_intent.succeeded:${report.id}`]);
});

it('a later send of the same --id is a replay; another event runs its handler once', async () => {
  effects.length = 0;
  const first = await cli(['send', 'stripe', url, '--secret', SECRET, '--id', 'evt_devloop_1']);
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(
    /^Sent stripe payment_intent\.succeeded \(evt_devloop_1\) to http:\/\/127\.0\.0\.1:\d+\/webhooks\/stripe: 200 \{"booked":"pi_devloop_1"\}\n$/,
  );
  const again = await cli(['send', 'stripe', url, '--secret', SECRET, '--id', 'evt_devloop_1']);
  expect(again.stdout).toMatch(/: 200, replayed \(Idempotent-Replayed: true\) /);
  const checkout = await cli([
    'send',
    'stripe',
    url,
    '--secret',
    SECRET,
    '--event',
    'checkout.session.completed',
  ]);
  expect(checkout.code).toBe(0);
  expect(effects).toEqual([
    'payment_intent.succeeded:evt_devloop_1',
    expect.stringMatching(/^checkout\.session\.completed:evt_[0-9a-f]{16}$/),
  ]);
});

it('--body sends exact bytes; a wrong secret is refused and the command exits non-zero', async () => {
  effects.length = 0;
  const file = sqliteFile('body').replace(/\.db$/, '.json');
  writeFileSync(
    file,
    '{"id":"evt_from_file","type":"invoice.paid","data":{"object":{"id":"in_1"}}}',
  );
  const fromFile = await cli(['send', 'stripe', url, '--secret', SECRET, '--body', file]);
  expect(fromFile.code).toBe(0);
  expect(effects).toEqual(['invoice.paid:evt_from_file']);
  const forged = await cli(['send', 'stripe', url, '--secret', 'whsec_wrong']);
  expect(forged.code).toBe(ExitCode.ERROR);
  expect(forged.stderr).toMatch(/answered 4\d\d\.\n$/);
  expect(effects).toEqual(['invoice.paid:evt_from_file']);
});

it('--list names the presets and their samples; bad input is a usage error', async () => {
  const list = await cli(['send', '--list']);
  expect(list.code).toBe(0);
  for (const row of [
    /^preset +sample event +signs with$/m,
    /^stripe +payment_intent\.succeeded +--secret <secret>$/m,
    /^stripe +checkout\.session\.completed +--secret <secret>$/m,
    /^github +push +--secret <secret>$/m,
    /^github +pull_request +--secret <secret>$/m,
    /^shopify +orders\/create +--secret <secret>$/m,
    /^telegram +message +--secret <secretToken>$/m,
    /^payme +CreateTransaction +--password \[--username\]$/m,
    /^click +prepare +--secret <secretKey>$/m,
    /^uzum +confirm +--username --password$/m,
    /^slack +\(--body FILE\) +--secret <signingSecret>$/m,
    /^discord +APPLICATION_COMMAND +--key-file <Ed25519 PEM>$/m,
    /^hubspot +contact\.creation +--secret <clientSecret>$/m,
  ])
    expect(list.stdout).toMatch(row);
  expect((await cli(['send', 'nope', url, '--secret', 'x'])).code).toBe(ExitCode.USAGE);
  expect((await cli(['send', 'stripe', url])).code).toBe(ExitCode.USAGE);
  expect((await cli(['send', 'stripe', url, '--secret', SECRET, '--event', 'x'])).code).toBe(
    ExitCode.USAGE,
  );
});
