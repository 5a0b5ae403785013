/**
 * ReceiptsAdmin on every kind of connection SqlStore accepts (knex on each dialect, both mysql2
 * APIs): the statements that vary with the driver (placeholders, BIGINT and DECIMAL results,
 * VARBINARY keys, LIMIT parameters) read and write the same receipts on each.
 */
import { ReceiptsAdmin, Schema } from '../src';
import { driverKinds, type OpenedKind } from './helpers/kinds';
import { seedReceipts } from './helpers/seed';

const TABLE = 'receipts_admin_kinds';
const MINUTE = 60_000;

describe.each(driverKinds('admin-kinds'))('ReceiptsAdmin over %s', (_name, open) => {
  let opened: OpenedKind;

  beforeAll(async () => {
    opened = await open();
    await Schema.createTable(opened.db, { table: TABLE });
    await seedReceipts(opened.db, TABLE, [
      { provider: 'github', externalId: 'd-1', status: 'completed', ageMs: MINUTE, tookMs: 250 },
      { provider: 'github', externalId: 'd-2', status: 'processing', ageMs: 10 * MINUTE },
      { provider: 'github', externalId: 'd-3', status: 'failed', ageMs: 2 * MINUTE, tookMs: 5 },
    ]);
  });
  afterAll(() => opened.close());

  it('reports, buckets, lists by keyset, releases, forgets and purges', async () => {
    const admin = new ReceiptsAdmin(opened.db, { table: TABLE });
    expect(await admin.tableExists()).toBe(true);
    const { totals, window } = await admin.status({ staleAfterMs: 5 * MINUTE, sinceMs: 3_600_000 });
    expect(totals).toMatchObject({ processing: 1, completed: 1, failed: 1, stuck: 1 });
    expect(window).toMatchObject({ completed: 1, failed: 1, failureShare: 0.5 });
    expect(window.handlerTime).toMatchObject({ sampled: 1, p50Ms: 250, maxMs: 250 });
    const { buckets } = await admin.activity({ sinceMs: 3_600_000, bucketMs: MINUTE });
    expect(buckets.reduce((n, b) => n + b.completed + b.failed, 0)).toBe(2);
    expect(buckets.find((b) => b.completed === 1)).toMatchObject({ meanHandlerMs: 250 });
    const [first] = await admin.list({ limit: 1 });
    const rest = await admin.list({ after: first!, externalId: 'd-3' });
    expect(rest.map((r) => r.externalId)).toEqual(first!.externalId === 'd-3' ? [] : ['d-3']);
    const stuck = await admin.list({ stuckAfterMs: 5 * MINUTE, limit: 5 });
    expect(stuck.map((r) => r.externalId)).toEqual(['d-2']);
    expect(await admin.release(stuck[0]!, { staleAfterMs: 5 * MINUTE })).toMatchObject({
      released: true,
      receipt: { status: 'failed' },
    });
    expect(await admin.forget({ provider: 'github', externalId: 'd-1' })).toMatchObject({
      forgotten: true,
      receipt: { status: 'completed' },
    });
    expect(await admin.purge({ olderThanMs: 0, provider: 'github', chunkSize: 2 })).toBe(2);
    expect(await admin.list()).toEqual([]);
  });
});
