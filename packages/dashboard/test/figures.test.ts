/**
 * The overview opens with the two figures over the last hour and day, drawn on the server from a
 * real SQLite database: the receipts' p95 time from claim to recorded answer, the inbox's stuck
 * deliveries now (by the dashboard's stuckAfterSeconds) with the oldest's age, and the share of
 * the deliveries finished in each window that took longer; per provider, and a chart of the day.
 */
import Database from 'better-sqlite3';
import { InboxSchema, ReceiptsAdmin, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import { seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { Client } from './helpers/client';
import { isAdmin, type Mounted, mounts } from './helpers/mounts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const express = mounts.find((m) => m.name === 'express')!;

/** The cards of the figures section, as `label → value`. */
function cards(page: string): Record<string, string> {
  const section =
    /<section aria-labelledby="h-figures">([\s\S]*?)<\/section>/.exec(page)?.[1] ?? '';
  return Object.fromEntries(
    [...section.matchAll(/<span class="big(?: bad)?">([^<]*)<\/span>([^<]*)<\/div>/g)].map((m) => [
      m[2]!,
      m[1]!,
    ]),
  );
}

describe('the overview: the two figures', () => {
  let db: Database.Database;
  let mounted: Mounted | undefined;
  afterEach(async () => {
    await mounted?.close();
    mounted = undefined;
    db?.close();
  });

  async function seed() {
    db = new Database(sqliteFile(`dashboard-figures-${Date.now()}`));
    await Schema.createTable(db);
    await InboxSchema.createTable(db);
    await seedReceipts(db, 'webhook_receipts', [
      ...Array.from({ length: 19 }, (_, i) => ({
        provider: 'stripe',
        externalId: `fast_${i}`,
        status: 'completed' as const,
        ageMs: 10 * MINUTE,
        tookMs: 40,
      })),
      // An hour ago and slower: only the day's percentile sees it.
      ...Array.from({ length: 20 }, (_, i) => ({
        provider: 'stripe',
        externalId: `slow_${i}`,
        status: 'completed' as const,
        ageMs: 3 * HOUR,
        tookMs: 900,
      })),
    ]);
    const inbox = new SqlInbox(db);
    for (const id of ['stuck_1', 'stuck_2', 'late', 'quick', 'fresh'])
      await inbox.enqueue({
        provider: 'shopify',
        externalId: id,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    // Received 20 minutes ago: stuck_1, stuck_2 and late (which then finishes, late).
    db.prepare(
      `UPDATE webhook_inbox SET received_at = received_at - ${20 * MINUTE} WHERE external_id IN ('stuck_1', 'stuck_2', 'late')`,
    ).run();
    const leased = await inbox.lease({ providers: ['shopify'], limit: 5, leaseMs: MINUTE });
    for (const d of leased.filter((d) => d.externalId === 'late' || d.externalId === 'quick'))
      await inbox.complete(d);
    for (const d of leased.filter(
      (d) => d.externalId.startsWith('stuck') || d.externalId === 'fresh',
    ))
      await inbox.giveBack(d, { delayMs: 0 });
    return inbox;
  }

  it('with an inbox: answer time for the hour and the day, stuck deliveries, the oldest, the late share; by provider', async () => {
    const inbox = await seed();
    mounted = await express.mount({
      authorize: isAdmin as never,
      receipts: new ReceiptsAdmin(db),
      inbox,
      basePath: '/ops',
      stuckAfterSeconds: 300,
    });
    const page = (await new Client(mounted.origin, { 'x-admin': 'yes' }).get('/ops/')).text;
    // The figures come first, before the counts.
    expect(page.indexOf('id="h-figures"')).toBeGreaterThan(0);
    expect(page.indexOf('id="h-figures"')).toBeLessThan(page.indexOf('id="h-now"'));
    expect(cards(page)).toEqual({
      'answer time p95, last hour': '40 ms',
      'answer time p95, last day': '900 ms',
      'stuck deliveries now (unfinished over 5m)': '2',
      'oldest unfinished delivery': '20m',
      'finished later than 5m, last hour': '1 of 2 (50.0 %)',
      'finished later than 5m, last day': '1 of 2 (50.0 %)',
    });
    expect(page).toMatch(
      /shopify(<\/bdi>)?<\/th><td class="n">3<\/td>\s*<td class="n bad">2<\/td>/,
    );
    expect(page).toContain('Answer time per hour, last day');
    expect(page.match(/<rect class="time"/g)?.length).toBeGreaterThanOrEqual(24);
  });

  it('a threshold of an hour: nothing stuck, nothing late; without an inbox, the stuck claims', async () => {
    const inbox = await seed();
    mounted = await express.mount({
      authorize: isAdmin as never,
      receipts: new ReceiptsAdmin(db),
      inbox,
      basePath: '/ops',
      stuckAfterSeconds: 3600,
    });
    const client = new Client(mounted.origin, { 'x-admin': 'yes' });
    expect(cards((await client.get('/ops/')).text)).toMatchObject({
      'stuck deliveries now (unfinished over 1h)': '0',
      'finished later than 1h, last hour': '0 of 2 (0.0 %)',
    });
    await mounted.close();
    mounted = await express.mount({
      authorize: isAdmin as never,
      receipts: new ReceiptsAdmin(db),
      basePath: '/ops',
    });
    const page = (await new Client(mounted.origin, { 'x-admin': 'yes' }).get('/ops/')).text;
    expect(cards(page)).toEqual({
      'answer time p95, last hour': '40 ms',
      'answer time p95, last day': '900 ms',
      'stuck claims now (processing over 5m)': '0',
    });
  });

  it('refuses a stuckAfterSeconds that is not a positive number', async () => {
    db = new Database(':memory:');
    await expect(
      express.mount({
        authorize: isAdmin as never,
        receipts: new ReceiptsAdmin(db),
        basePath: '/ops',
        stuckAfterSeconds: 0,
      }),
    ).rejects.toMatchObject({ name: 'ConfigError', option: 'stuckAfterSeconds' });
  });
});
