/**
 * One contract, two implementations: `InMemoryReceipts` (the dashboard's admin over an
 * `InMemoryStore`) answers as `ReceiptsAdmin` does on a SQLite file, for the same scene: counts,
 * listings and their keyset pages in both orders, buckets, and the results of release, forget and
 * purge.
 */
import { ReceiptsAdmin } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import Database from 'better-sqlite3';
import { type DashboardReceipts, InMemoryReceipts } from '../src';
import { seedMemory, seedSql } from './helpers/seed';

const MINUTE = 60_000;
const key = (r: { provider: string; externalId: string }) => `${r.provider}/${r.externalId}`;

async function pages(admin: DashboardReceipts, order: 'newest' | 'oldest'): Promise<string[]> {
  const seen: string[] = [];
  let after: Awaited<ReturnType<DashboardReceipts['list']>>[number] | undefined;
  for (let i = 0; i < 10; i++) {
    const page = await admin.list({ order, limit: 2, ...(after ? { after } : {}) });
    seen.push(...page.map(key));
    if (page.length < 2) break;
    after = page[page.length - 1];
  }
  return seen;
}

/** What each admin says about the scene, as plain data. */
async function read(admin: DashboardReceipts) {
  const status = await admin.status({ staleAfterMs: 5 * MINUTE, sinceMs: 3_600_000 });
  const activity = await admin.activity({ sinceMs: 3_600_000, bucketMs: MINUTE });
  return {
    providers: status.providers.map(({ oldestProcessingAgeMs: _, ...c }) => c),
    window: {
      completed: status.window.completed,
      failed: status.window.failed,
      p50: status.window.handlerTime?.p50Ms,
    },
    all: (await admin.list()).map(key),
    stuck: (await admin.list({ stuckAfterMs: 5 * MINUTE, order: 'oldest' })).map(key),
    github: (await admin.list({ provider: 'github', status: ['failed', 'processing'] })).map(key),
    byId: (await admin.list({ externalId: 'gh-2' })).map(key),
    newest: await pages(admin, 'newest'),
    oldest: await pages(admin, 'oldest'),
    finished: activity.buckets.reduce((n, b) => n + b.completed + b.failed, 0),
    buckets: activity.buckets.length >= 60 && activity.buckets.length <= 61,
    purgeable: await admin.countPurgeable({ olderThanMs: 10 * MINUTE }),
    fresh: (
      await admin.release(
        { provider: 'github', externalId: 'gh-fresh' },
        { staleAfterMs: 5 * MINUTE },
      )
    ).released,
    released: (
      await admin.release(
        { provider: 'stripe', externalId: 'evt_stuck' },
        { staleAfterMs: 5 * MINUTE },
      )
    ).released,
    forgetProcessing: await admin
      .forget({ provider: 'github', externalId: 'gh-fresh' })
      .then((r) => (r.forgotten ? 'forgotten' : r.reason)),
    forgot: (await admin.forget({ provider: 'stripe', externalId: 'evt_2' })).forgotten,
    purged: await admin.purge({ olderThanMs: 10 * MINUTE }),
    left: (await admin.list({ order: 'oldest' })).map((r) => `${key(r)}:${r.status}`),
  };
}

it('InMemoryReceipts answers as ReceiptsAdmin does on SQLite', async () => {
  const db = new Database(sqliteFile('admins'));
  try {
    await seedSql(db);
    const sql = await read(new ReceiptsAdmin(db));
    const memory = await read(new InMemoryReceipts((await seedMemory()).store));
    expect(memory).toEqual(sql);
    expect(sql.newest).toEqual(sql.all);
    expect(sql.released).toBe(true);
    expect(sql.fresh).toBe(false);
    expect(sql.purged).toBeGreaterThan(0);
  } finally {
    db.close();
  }
});
