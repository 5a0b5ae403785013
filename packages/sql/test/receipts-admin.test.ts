/**
 * ReceiptsAdmin on PostgreSQL, MariaDB and a SQLite file: the same cases on each (no dialect
 * branches), over receipts that the real SqlStore claimed, completed and failed.
 */
import { ConfigError, IdempotencyGuard, StoreError } from '@webhook-idempotency/core';
import { ReceiptsAdmin, Schema, SqlStore } from '../src';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import { httpResponse, type SeedReceipt, seedReceipts } from './helpers/seed';
import { type Connected, connect, type Target } from './helpers/targets';
import { truncate } from './helpers/conformance';

const TABLE = 'receipts_admin';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STALE = 5 * MINUTE;

const RECEIPTS: readonly SeedReceipt[] = [
  { provider: 'github', externalId: 'd-1', status: 'completed', ageMs: 2 * HOUR, tookMs: 120 },
  { provider: 'github', externalId: 'd-2', status: 'completed', ageMs: 30 * MINUTE, tookMs: 340 },
  {
    provider: 'github',
    externalId: 'd-3',
    status: 'failed',
    ageMs: 10 * MINUTE,
    tookMs: 2100,
    error: 'Error: upstream answered 502',
  },
  { provider: 'github', externalId: 'd-4', status: 'processing', ageMs: 12 * MINUTE },
  { provider: 'stripe', externalId: 'evt_1', status: 'completed', ageMs: 3 * DAY, tookMs: 80 },
  { provider: 'stripe', externalId: 'evt_2', status: 'processing', ageMs: 30 * SECOND },
  {
    provider: 'stripe',
    externalId: 'evt_3',
    status: 'completed',
    ageMs: HOUR,
    tookMs: 95,
    response: httpResponse(200, { received: true }),
  },
];

const targets: Array<[string, () => Promise<Target>]> = [
  ['PostgreSQL', async () => ({ dialect: 'postgres', url: await pgDatabase('wi_admin') })],
  ['MariaDB', async () => ({ dialect: 'mysql', url: await mysqlDatabase('wi_admin') })],
  ['SQLite file', async () => ({ dialect: 'sqlite', url: sqliteFile('admin') })],
];

describe.each(targets)('ReceiptsAdmin on %s', (_name, target) => {
  let connected: Connected;
  let admin: ReceiptsAdmin;

  beforeAll(async () => {
    connected = connect(await target());
    admin = new ReceiptsAdmin(connected.db, { table: TABLE });
  });
  afterAll(() => connected.close());

  it('tells whether the table exists', async () => {
    expect(await admin.tableExists()).toBe(false);
    await expect(admin.list()).rejects.toBeInstanceOf(StoreError);
    await Schema.createTable(connected.db, { table: TABLE });
    expect(await admin.tableExists()).toBe(true);
  });

  describe('over seeded receipts', () => {
    beforeEach(async () => {
      await Schema.createTable(connected.db, { table: TABLE });
      await truncate(connected.db, TABLE);
      await seedReceipts(connected.db, TABLE, RECEIPTS);
    });

    it('counts per provider and status, stuck claims, completed handler-time percentiles and the failure share', async () => {
      const status = await admin.status({ staleAfterMs: STALE, sinceMs: DAY });
      expect(status.providers).toEqual([
        {
          provider: 'github',
          processing: 1,
          completed: 2,
          failed: 1,
          stuck: 1,
          oldestProcessingAgeMs: expect.any(Number),
        },
        {
          provider: 'stripe',
          processing: 1,
          completed: 2,
          failed: 0,
          stuck: 0,
          oldestProcessingAgeMs: expect.any(Number),
        },
      ]);
      const [github, stripe] = status.providers;
      expect(github!.oldestProcessingAgeMs).toBeGreaterThanOrEqual(12 * MINUTE);
      expect(github!.oldestProcessingAgeMs).toBeLessThan(13 * MINUTE);
      expect(stripe!.oldestProcessingAgeMs).toBeGreaterThanOrEqual(30 * SECOND);
      expect(stripe!.oldestProcessingAgeMs).toBeLessThan(MINUTE);
      expect(status.totals).toMatchObject({ processing: 2, completed: 4, failed: 1, stuck: 1 });
      expect(status.totals.oldestProcessingAgeMs).toBe(github!.oldestProcessingAgeMs);
      // evt_1 finished 3 days ago: outside the 24 h window.
      expect(status.window).toEqual({
        sinceMs: DAY,
        completed: 3,
        failed: 1,
        failureShare: 0.25,
        handlerTime: { sampled: 3, p50Ms: 120, p95Ms: 340, p99Ms: 340, maxMs: 340 },
      });
    });

    it('samples at most sampleLimit durations, the most recent ones', async () => {
      const { window } = await admin.status({ staleAfterMs: STALE, sinceMs: DAY, sampleLimit: 2 });
      // The most recent completed ones: d-2 (30 min ago, 340 ms) and evt_3 (1 h ago, 95 ms).
      expect(window.handlerTime).toEqual({
        sampled: 2,
        p50Ms: 95,
        p95Ms: 340,
        p99Ms: 340,
        maxMs: 340,
      });
    });

    it('lists with filters, without the stored answers', async () => {
      const ids = async (options: Parameters<ReceiptsAdmin['list']>[0]) =>
        (await admin.list(options)).map((r) => `${r.provider}/${r.externalId}`);
      expect(await ids({})).toEqual([
        'stripe/evt_2',
        'github/d-3',
        'github/d-4',
        'github/d-2',
        'stripe/evt_3',
        'github/d-1',
        'stripe/evt_1',
      ]);
      expect(await ids({ status: 'processing' })).toEqual(['stripe/evt_2', 'github/d-4']);
      expect(await ids({ status: ['failed', 'processing'], provider: 'github' })).toEqual([
        'github/d-3',
        'github/d-4',
      ]);
      expect(await ids({ stuckAfterMs: STALE })).toEqual(['github/d-4']);
      expect(await ids({ sinceMs: 45 * MINUTE })).toEqual([
        'stripe/evt_2',
        'github/d-3',
        'github/d-4',
        'github/d-2',
      ]);
      expect(await ids({ limit: 2, order: 'oldest' })).toEqual(['stripe/evt_1', 'github/d-1']);
      const [failed] = await admin.list({ status: 'failed' });
      expect(failed).toEqual({
        provider: 'github',
        externalId: 'd-3',
        status: 'failed',
        attempts: 1,
        error: 'Error: upstream answered 502',
        claimedAt: expect.any(Date),
        claimedAtText: `${failed!.claimedAt.toISOString().slice(0, 23)}000Z`,
        finishedAt: expect.any(Date),
        claimAgeMs: expect.any(Number),
      });
      expect(failed!.finishedAt!.getTime() - failed!.claimedAt.getTime()).toBe(2100);
    });

    it('pages by keyset in either order, ties of claim time broken by the key; filters by id and claim time', async () => {
      const key = (r: { provider: string; externalId: string }) => `${r.provider}/${r.externalId}`;
      // Two more claims in one millisecond: the tie the key must break.
      await connected.sql.query(
        `UPDATE ${TABLE} SET claimed_at = (SELECT claimed_at FROM ${TABLE} WHERE external_id = 'd-2') WHERE external_id IN ('d-1', 'evt_3')`,
        [],
      );
      for (const order of ['newest', 'oldest'] as const) {
        const all = (await admin.list({ order })).map(key);
        const paged: string[] = [];
        let after: Awaited<ReturnType<ReceiptsAdmin['list']>>[number] | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const page = await admin.list({ order, limit: 2, ...(after ? { after } : {}) });
          paged.push(...page.map(key));
          if (page.length < 2) break;
          after = page[page.length - 1];
        }
        expect(paged).toEqual(all);
        expect(new Set(paged).size).toBe(RECEIPTS.length);
      }
      expect((await admin.list({ externalId: 'd-3' })).map(key)).toEqual(['github/d-3']);
      expect(await admin.list({ externalId: 'd-3', provider: 'stripe' })).toEqual([]);
      const d4 = (await admin.find({ provider: 'github', externalId: 'd-4' }))!;
      expect(
        (
          await admin.list({
            claimedFrom: d4.claimedAt,
            claimedBefore: new Date(d4.claimedAt.getTime() + 1),
          })
        ).map(key),
      ).toEqual(['github/d-4']);
      expect(
        (await admin.list({ claimedBefore: d4.claimedAt, status: 'processing' })).map(key),
      ).toEqual([]);
      await expect(
        admin.list({
          after: { provider: 'github', externalId: 'x', claimedAt: new Date(Number.NaN) },
        }),
      ).rejects.toMatchObject({ option: 'after.claimedAt' });
      await expect(admin.list({ externalId: '' })).rejects.toMatchObject({ option: 'externalId' });
    });

    it('counts finished receipts per bucket with the completed ones’ handler times, every bucket of the window', async () => {
      const report = await admin.activity({ sinceMs: HOUR, bucketMs: MINUTE });
      expect(report.buckets.length).toBeGreaterThanOrEqual(60);
      expect(report.buckets.length).toBeLessThanOrEqual(61);
      const starts = report.buckets.map((b) => b.start.getTime());
      expect(starts.every((t, i) => i === 0 || t - starts[i - 1]! === MINUTE)).toBe(true);
      expect(starts.every((t) => t % MINUTE === 0)).toBe(true);
      // In the last hour: d-2 completed (340 ms), d-3 failed; evt_3 finished an hour ago, at the edge.
      const completed = report.buckets.reduce((n, b) => n + b.completed, 0);
      const failed = report.buckets.reduce((n, b) => n + b.failed, 0);
      expect(failed).toBe(1);
      expect([1, 2]).toContain(completed);
      const d2 = report.buckets.find((b) => b.maxHandlerMs === 340);
      expect(d2).toMatchObject({ completed: 1, meanHandlerMs: 340 });
      const emptyOnes = report.buckets.filter((b) => b.completed + b.failed === 0);
      expect(emptyOnes.every((b) => b.meanHandlerMs === null && b.maxHandlerMs === null)).toBe(
        true,
      );
      expect(Math.abs(report.now.getTime() - Date.now())).toBeLessThan(MINUTE);
      await expect(admin.activity({ sinceMs: DAY, bucketMs: SECOND })).rejects.toMatchObject({
        option: 'bucketMs',
      });
    });

    it('refuses unknown statuses and bad limits, naming the option', async () => {
      await expect(admin.list({ status: 'stuck' as never })).rejects.toThrow(ConfigError);
      await expect(admin.list({ status: 'stuck' as never })).rejects.toMatchObject({
        option: 'status',
      });
      await expect(admin.list({ limit: 0 })).rejects.toMatchObject({ option: 'limit' });
      await expect(admin.status({ staleAfterMs: -1, sinceMs: DAY })).rejects.toMatchObject({
        option: 'staleAfterMs',
      });
    });

    it('finds one receipt with its stored answer', async () => {
      const receipt = await admin.find({ provider: 'stripe', externalId: 'evt_3' });
      expect(receipt).toMatchObject({
        status: 'completed',
        response: httpResponse(200, { received: true }),
        attempts: 1,
      });
      expect(await admin.find({ provider: 'stripe', externalId: 'nope' })).toBeNull();
    });

    it('releases a stuck claim fenced on attempts; the next delivery runs the handler again', async () => {
      const key = { provider: 'github', externalId: 'd-4' };
      const before = await admin.find(key);
      const result = await admin.release(key, { staleAfterMs: STALE });
      expect(result).toMatchObject({
        released: true,
        receipt: {
          status: 'failed',
          attempts: 1,
          error: expect.stringMatching(/released by hand/),
        },
      });
      // The worker that held the claim (attempts 1, that claim time) can no longer finish it.
      const store = new SqlStore(connected.db, { table: TABLE });
      expect(
        await store.complete(key, {
          now: Date.now(),
          attempts: 1,
          claimedAt: before!.claimedAt,
          response: '"late"',
        }),
      ).toBe(false);
      const guard = new IdempotencyGuard(store, { staleAfterSeconds: STALE / SECOND });
      const outcome = await guard.run(key, async () => 'ran again');
      expect(outcome).toMatchObject({ isReplay: false, attempts: 2, response: 'ran again' });
      expect(await admin.release(key, { staleAfterMs: STALE })).toMatchObject({
        released: false,
        reason: 'not-processing',
      });
    });

    it('refuses a fresh claim unless forced, and reports a missing receipt', async () => {
      const key = { provider: 'stripe', externalId: 'evt_2' };
      expect(await admin.release(key, { staleAfterMs: STALE })).toMatchObject({
        released: false,
        reason: 'fresh',
        receipt: { status: 'processing' },
      });
      expect(
        await admin.release(key, { staleAfterMs: STALE, force: true, error: 'operator' }),
      ).toMatchObject({ released: true, receipt: { status: 'failed', error: 'operator' } });
      expect(
        await admin.release({ provider: 'stripe', externalId: 'nope' }, { staleAfterMs: STALE }),
      ).toEqual({ released: false, reason: 'not-found', receipt: null });
    });

    it('forgets a finished receipt, so the next run of its key runs the handler again; never a processing one', async () => {
      const key = { provider: 'stripe', externalId: 'evt_3' };
      const store = new SqlStore(connected.db, { table: TABLE });
      const guard = new IdempotencyGuard(store, { staleAfterSeconds: STALE / SECOND });
      // Completed: a run now only replays the stored answer.
      expect(await guard.run(key, async () => 'again')).toMatchObject({ isReplay: true });
      expect(await admin.forget(key)).toMatchObject({
        forgotten: true,
        receipt: { status: 'completed', attempts: 1 },
      });
      expect(await admin.find(key)).toBeNull();
      expect(await guard.run(key, async () => 'ran again')).toMatchObject({
        isReplay: false,
        response: 'ran again',
      });
      // A failed receipt can be forgotten too; a processing one never, whatever its age.
      expect(await admin.forget({ provider: 'github', externalId: 'd-3' })).toMatchObject({
        forgotten: true,
        receipt: { status: 'failed' },
      });
      for (const externalId of ['d-4', 'evt_2'])
        expect(
          await admin.forget({ provider: externalId === 'd-4' ? 'github' : 'stripe', externalId }),
        ).toMatchObject({
          forgotten: false,
          reason: 'processing',
          receipt: { status: 'processing' },
        });
      expect(await admin.find({ provider: 'github', externalId: 'd-4' })).not.toBeNull();
      expect(await admin.forget({ provider: 'stripe', externalId: 'nope' })).toEqual({
        forgotten: false,
        reason: 'not-found',
        receipt: null,
      });
    });

    it('purges finished receipts in chunks, by provider or all of them, never a processing one', async () => {
      expect(await admin.countPurgeable({ olderThanMs: DAY })).toBe(1);
      expect(await admin.countPurgeable({ olderThanMs: 0, provider: 'github' })).toBe(3);
      const chunks: number[] = [];
      const deleted = await admin.purge({
        olderThanMs: 0,
        provider: 'github',
        chunkSize: 2,
        onChunk: (total) => chunks.push(total),
      });
      expect(deleted).toBe(3);
      expect(chunks).toEqual([2, 3]);
      expect(await admin.purge({ olderThanMs: 0 })).toBe(2);
      const left = await admin.list({});
      expect(left.map((r) => `${r.provider}/${r.externalId}:${r.status}`).sort()).toEqual([
        'github/d-4:processing',
        'stripe/evt_2:processing',
      ]);
    });

    it('purge takes batchSize and onBatch, the deprecated names of chunkSize and onChunk; the two names must agree', async () => {
      await expect(
        admin.purge({ olderThanMs: 0, provider: 'github', chunkSize: 2, batchSize: 1 }),
      ).rejects.toMatchObject({ option: 'chunkSize' });
      await expect(
        admin.purge({ olderThanMs: 0, onChunk: () => {}, onBatch: () => {} }),
      ).rejects.toMatchObject({ option: 'onChunk' });
      expect(await admin.countPurgeable({ olderThanMs: 0, provider: 'github' })).toBe(3);
      const chunks: number[] = [];
      const deleted = await admin.purge({
        olderThanMs: 0,
        provider: 'github',
        batchSize: 2,
        onBatch: (total) => chunks.push(total),
      });
      expect(deleted).toBe(3);
      expect(chunks).toEqual([2, 3]);
    });
  });
});
