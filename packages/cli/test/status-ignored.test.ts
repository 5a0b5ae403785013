/**
 * `status` shows the events a route set ignored, per provider and type, and `migrate` adds the
 * counts table to an install that predates it: on PostgreSQL, MariaDB and a SQLite file, with the
 * events sent through a real Express app (a route set over the SqlStore) and the command run
 * through its real entry point. An ignored event leaves no receipt; once its tally is written
 * (`flushIgnored`, what a shutdown calls; else within seconds) the command counts it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { flushIgnored, routes } from '@webhook-idempotency/core/routes';
import { idempotent } from '@webhook-idempotency/express';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { Schema, type SqlDialect, SqlStore } from '@webhook-idempotency/sql';
import {
  mysqlDatabase,
  pgDatabase,
  sqliteFile,
} from '@webhook-idempotency/sql/test/helpers/databases';
import { connect } from '@webhook-idempotency/sql/test/helpers/targets';
import express from 'express';
import { cli } from './helpers/cli';

const SECRET = 'whsec_cli_ignored';
const HOSTILE = '<script>alert(1)</script>\u0000'.padEnd(300, 'x');

const targets: Array<[string, SqlDialect, () => Promise<{ url: string; target: string }>]> = [
  [
    'PostgreSQL',
    'postgres',
    async () => {
      const url = await pgDatabase('wi_cli_ignored');
      return { url, target: url };
    },
  ],
  [
    'MariaDB',
    'mysql',
    async () => {
      const url = await mysqlDatabase('wi_cli_ignored');
      return { url, target: url };
    },
  ],
  [
    'SQLite',
    'sqlite',
    async () => {
      const file = sqliteFile('cli-ignored');
      return { url: `sqlite:${file}`, target: file };
    },
  ],
];

/** The receipts table's DDL as a version before the ignored counts wrote it. */
const olderDdl = (dialect: SqlDialect) =>
  Schema.statements(dialect).filter((statement) => !statement.includes('webhook_receipts_ignored'));

describe.each(targets)('ignored events on %s', (_name, dialect, open) => {
  it('counts that cannot be read (a counts table of another shape) are said; status still reports the receipts and exits 0', async () => {
    const { url, target } = await open();
    const run = (...args: string[]) => cli(args, { env: { DATABASE_URL: url } });
    const connected = connect({ dialect, url: target });
    try {
      for (const statement of olderDdl(dialect)) await connected.sql.query(statement, []);
      await connected.sql.query('CREATE TABLE webhook_receipts_ignored (other INTEGER)', []);
      const text = await run('status');
      expect(text).toMatchObject({ code: 0, stderr: '' });
      expect(text.stdout).toMatch(/^No receipts in webhook_receipts\.\n/);
      expect(text.stdout).toMatch(/\nIgnored events \(no route\): could not be read: .+\n$/);
      const json = await run('status', '--json');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).ignored).toEqual({ error: expect.any(String) });
    } finally {
      await connected.sql.query('DROP TABLE IF EXISTS webhook_receipts_ignored', []);
      await connected.sql.query('DROP TABLE IF EXISTS webhook_receipts', []);
      await connected.close();
    }
  });

  it('migrate adds the counts table to an older install; status then counts what the route set ignored, per type', async () => {
    const { url, target } = await open();
    const run = (...args: string[]) => cli(args, { env: { DATABASE_URL: url } });
    const connected = connect({ dialect, url: target });
    let server: Server | undefined;
    try {
      for (const statement of olderDdl(dialect)) await connected.sql.query(statement, []);
      const before = await run('status', '--json');
      expect(before.code).toBe(0);
      expect(JSON.parse(before.stdout).ignored).toMatchObject({ counted: false, total: 0 });
      // A purge on an install without the counts table purges the receipts and says nothing of it.
      expect(await run('purge', '--retention-days', '0')).toMatchObject({ code: 0, stderr: '' });
      expect((await run('status')).stdout).toMatch(
        /Ignored events \(no route\): not counted, table webhook_receipts_ignored is missing\.\nCreate it with: webhook-idempotency migrate\n$/,
      );

      const migrated = await run('migrate');
      expect(migrated.stdout).toMatch(
        /\nAdded table webhook_receipts_ignored \(the ignored events' counts\) beside webhook_receipts\.\n$/,
      );
      const again = JSON.parse((await run('migrate', '--json')).stdout);
      expect(again).toMatchObject({ created: false, indexesAdded: [], tablesAdded: [] });

      // An app whose route set takes payment_intent.succeeded only.
      const store = new SqlStore(connected.db);
      const ran: string[] = [];
      const preset = routes(providers.stripe({ secret: SECRET }), {
        'payment_intent.succeeded': (event) => void ran.push((event as { id: string }).id),
      });
      const app = express();
      app.post('/webhooks/stripe', express.raw({ type: '*/*' }), idempotent({ store, preset }));
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server!.once('listening', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const stripe = signers.stripe({ secret: SECRET });
      const post = async (id: string, type: string) => {
        const request = signers.send.toRequest(
          stripe.event({ id, type, data: { object: {} } }),
          base,
        );
        const response = await fetch(request);
        expect(response.status).toBe(200);
      };
      for (const id of ['evt_c1', 'evt_c2', 'evt_c3']) await post(id, 'customer.created');
      await post('evt_h', HOSTILE);
      await post('evt_paid', 'payment_intent.succeeded');
      expect(ran).toEqual(['evt_paid']);
      await flushIgnored(store);

      const status = await run('status', '--json');
      const report = JSON.parse(status.stdout);
      expect(report.totals).toMatchObject({ completed: 1, processing: 0, failed: 0 });
      expect(report.ignored).toMatchObject({
        counted: true,
        total: 4,
        table: 'webhook_receipts_ignored',
      });
      const stored = `<script>alert(1)</script>\ufffd${'x'.repeat(74)}`;
      expect(report.ignored.events).toEqual([
        expect.objectContaining({ provider: 'stripe', type: 'customer.created', count: 3 }),
        expect.objectContaining({ provider: 'stripe', type: stored, count: 1 }),
      ]);
      const { rows } = await connected.sql.query(
        "SELECT external_id FROM webhook_receipts WHERE external_id <> 'evt_paid'",
        [],
      );
      expect(rows).toEqual([]);

      const text = (await run('status', '--since', '2h')).stdout;
      expect(text).toMatch(
        /\nIgnored \(no route: nothing stored or run\), since \d{4}-\d\d-\d\dT\d\d:00:00\.000Z: 4\n/,
      );
      expect(text).toMatch(/\nstripe\s+customer\.created\s+3\s+\d{4}-\d\d-\d\dT\d\d:00:00\.000Z\n/);
      expect(text).toContain('<script>alert(1)</script>');

      // A purge takes the counts of hours that ended before its cut-off with the receipts: an
      // hour ten days old goes, this hour's stay.
      const DAY = 24 * 3_600_000;
      await store.addIgnored!(
        [{ provider: 'stripe', type: 'customer.deleted', hour: Date.now() - 10 * DAY, count: 5 }],
        { now: Date.now() },
      );
      const since = ['status', '--json', '--since', '30d'];
      expect(JSON.parse((await run(...since)).stdout).ignored.total).toBe(9);
      expect((await run('purge', '--retention-days', '7')).code).toBe(0);
      const purged = JSON.parse((await run(...since)).stdout).ignored;
      expect(purged.total).toBe(4);
      expect(purged.events.map((row: { type: string }) => row.type)).not.toContain(
        'customer.deleted',
      );
    } finally {
      if (server) await new Promise((resolve) => server!.close(resolve));
      await connected.close();
    }
  });
});
