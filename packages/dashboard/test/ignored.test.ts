/**
 * The overview's ignored events (what route sets acknowledged with no route: nothing stored, no
 * handler run), over HTTP from a real SQLite file (ReceiptsAdmin) and from an InMemoryStore: the
 * total, per provider and the most frequent types. The types are the senders' text: markup in one
 * is escaped, never markup of the page, and a long one is cut. An install without the counts table
 * says to migrate; a receipts admin without `ignored` shows no section.
 */
import Database from 'better-sqlite3';
import { InMemoryStore } from '@webhook-idempotency/core';
import type { IgnoredCount } from '@webhook-idempotency/core/adapter';
import { ReceiptsAdmin, Schema, SqlStore } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import type { DashboardReceipts } from '../src';
import { Client } from './helpers/client';
import { isAdmin, type Mounted, mounts } from './helpers/mounts';

const HOUR = 3_600_000;
const express = mounts.find((m) => m.name === 'express')!;
const SCRIPT = '<script>alert(1)</script>';
const BREAKOUT = '"><img src=x onerror=alert(2)>';
const LONG = `t.${'a'.repeat(400)}`;

/** This hour and the one before, as the guards' tallies write them. */
function counts(): IgnoredCount[] {
  const hour = Math.floor(Date.now() / HOUR) * HOUR;
  return [
    { provider: 'stripe', type: 'customer.created', hour: hour - HOUR, count: 7 },
    { provider: 'stripe', type: 'customer.created', hour, count: 5 },
    { provider: 'stripe', type: SCRIPT, hour, count: 3 },
    { provider: 'github', type: BREAKOUT, hour, count: 2 },
    { provider: 'github', type: LONG, hour, count: 1 },
    // Older than the day: not shown.
    { provider: 'github', type: 'watch', hour: hour - 30 * HOUR, count: 50 },
  ];
}

/** The section's markup. */
const section = (page: string) =>
  /<section aria-labelledby="h-ignored">([\s\S]*?)<\/section>/.exec(page)?.[1];

let mounted: Mounted | undefined;
let db: Database.Database | undefined;
afterEach(async () => {
  await mounted?.close();
  mounted = undefined;
  db?.close();
  db = undefined;
});

async function overview(receipts: DashboardReceipts | InMemoryStore): Promise<string> {
  mounted = await express.mount({ authorize: isAdmin as never, receipts, basePath: '/ops' });
  const got = await new Client(mounted.origin, { 'x-admin': 'yes' }).get('/ops/');
  expect(got.status).toBe(200);
  return got.text;
}

function expectCounts(html: string | undefined) {
  expect(html).toBeDefined();
  expect(html).toContain('18 events ignored');
  // Per provider, then the types, the most frequent first.
  expect(html).toMatch(/stripe(<\/bdi>)?<\/th><td class="n">15<\/td>/);
  expect(html).toMatch(/github(<\/bdi>)?<\/th><td class="n">3<\/td>/);
  const types = [
    ...html!.matchAll(/<td class="wrap id"><bdi>([^<]*)<\/bdi><\/td><td class="n">(\d+)/g),
  ];
  expect(types.map((m) => [m[1], m[2]])).toEqual([
    ['customer.created', '12'],
    ['&lt;script&gt;alert(1)&lt;/script&gt;', '3'],
    ['&quot;&gt;&lt;img src=x onerror=alert(2)&gt;', '2'],
    [`t.${'a'.repeat(98)}…`, '1'],
  ]);
  expect(html).not.toContain(SCRIPT);
  expect(html).not.toContain('<img');
  expect(html).not.toContain('watch');
}

describe('the overview: ignored events', () => {
  it('from the SQL counts table (ReceiptsAdmin): totals per provider and type, escaped and cut', async () => {
    db = new Database(sqliteFile(`dashboard-ignored-${Date.now()}`));
    await Schema.createTable(db);
    await new SqlStore(db).addIgnored(counts(), { now: Date.now() });
    expectCounts(section(await overview(new ReceiptsAdmin(db))));
  });

  it('from an InMemoryStore, the same', async () => {
    const store = new InMemoryStore();
    await store.addIgnored(counts(), { now: Date.now() });
    expectCounts(section(await overview(store)));
  });

  it('none: says so; no counts table: says to migrate; a receipts admin without ignored: no section', async () => {
    expect(section(await overview(new InMemoryStore()))).toContain('<p>None.</p>');
    await mounted?.close();
    db = new Database(sqliteFile(`dashboard-ignored-old-${Date.now()}`));
    for (const statement of Schema.statements('sqlite').filter((s) => !s.includes('_ignored')))
      db.exec(statement);
    expect(section(await overview(new ReceiptsAdmin(db)))).toMatch(
      /Not counted: table <bdi>webhook_receipts_ignored<\/bdi> is missing\. Create it with <code>webhook-idempotency migrate<\/code>/,
    );
    await mounted?.close();
    const admin = new ReceiptsAdmin(db);
    const older: DashboardReceipts = {
      status: (o) => admin.status(o),
      list: (o) => admin.list(o),
      find: (k) => admin.find(k),
      release: (k, o) => admin.release(k, o),
      forget: (k, o) => admin.forget(k, o),
      countPurgeable: (o) => admin.countPurgeable(o),
      purge: (o) => admin.purge(o),
      activity: (o) => admin.activity(o),
    };
    const page = await overview(older);
    expect(page).toContain('id="h-now"');
    expect(section(page)).toBeUndefined();
  });

  it('counts that cannot be read (a counts table of another shape): said in the section, the rest of the overview shown', async () => {
    db = new Database(sqliteFile(`dashboard-ignored-unreadable-${Date.now()}`));
    for (const statement of Schema.statements('sqlite').filter((s) => !s.includes('_ignored')))
      db.exec(statement);
    db.exec('CREATE TABLE webhook_receipts_ignored (other INTEGER)');
    const page = await overview(new ReceiptsAdmin(db));
    expect(page).toContain('id="h-now"');
    expect(section(page)).toContain('The ignored-event counts could not be read');
  });
});
