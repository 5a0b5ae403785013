/**
 * Regression: a delivery the inbox worker ran in a batch got a receipt claimed and finished at the
 * same instant, so its handler time (`finished_at − claimed_at`) read 0 ms, and the CLI's `status`
 * and the dashboard reported "p50 0 ms" for handlers that took hundreds. Each batched receipt now
 * records its own handler's time: at least what the handler itself measured, and not its batch's
 * (a fast handler run after a slow one in the same transaction records less than the slow one took).
 * On every kind of connection, read back from the receipts table and through `ReceiptsAdmin.status`.
 */
import { createInboxWorker, type InboxHandler } from '@webhook-idempotency/core/inbox';
import { RequestKey } from '@webhook-idempotency/core';
import { InboxSchema, ReceiptsAdmin, Schema, SqlInbox, SqlStore } from '../../src';
import { connectionKinds, type OpenedKind } from '../helpers/kinds';

/** Each handler's wait, in the order the batch runs them: slow first, so a batch-wide time shows. */
const WAITS: ReadonlyArray<[string, number]> = [
  ['evt_slow', 300],
  ['evt_fast', 0],
  ['evt_mid', 60],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(connectionKinds('batch_handler_time'))('a batched receipt (%s)', (_name, open) => {
  let opened: OpenedKind;

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());

  it("records its own handler's time; the status read reports it", async () => {
    await InboxSchema.createTable(opened.db, { table: 'inbox_times' });
    await Schema.createTable(opened.db, { table: 'receipts_times' });
    const inbox = new SqlInbox(opened.db, { table: 'inbox_times' });
    const store = new SqlStore(opened.db, { table: 'receipts_times' });
    for (const [id] of WAITS)
      await inbox.enqueue({
        provider: 'stripe',
        externalId: id,
        orderingKey: null,
        headers: {},
        body: Buffer.from(id),
      });
    /** What each handler measured of itself, and the transactions they ran in. */
    const measured = new Map<string, number>();
    const transactions = new Set<unknown>();
    const handler: InboxHandler<unknown> = async (delivery, { transaction }) => {
      const began = performance.now();
      transactions.add(transaction);
      const wait = WAITS.find(([id]) => id === delivery.externalId)![1];
      if (wait > 0) await sleep(wait);
      measured.set(delivery.externalId, performance.now() - began);
      return 'ok';
    };
    // One lane and a window no handler reaches: the three run in one batch, in claim order.
    const worker = createInboxWorker({
      inbox,
      store: store as never,
      handlers: { stripe: handler },
      concurrency: 1,
      groupWindowMs: 60_000,
    });
    expect(await worker.runOnce()).toBe(3);
    expect(transactions.size).toBe(1);

    const recorded = new Map<string, number>();
    for (const [id] of WAITS) {
      const receipt = await store.find(new RequestKey('stripe', id), { now: Date.now() });
      expect(receipt).toMatchObject({ status: 'completed', attempts: 1 });
      recorded.set(id, receipt!.finishedAt!.getTime() - receipt!.claimedAt.getTime());
    }
    // Whole milliseconds in the table: at most 1 ms under what the handler measured of itself.
    for (const [id] of WAITS)
      expect(recorded.get(id)!).toBeGreaterThanOrEqual(Math.floor(measured.get(id)!) - 1);
    // Its own time, not the batch's: the fast handler ran after the slow one, in its transaction.
    expect(recorded.get('evt_fast')!).toBeLessThan(measured.get('evt_slow')!);

    const { window } = await new ReceiptsAdmin(opened.db, { table: 'receipts_times' }).status({
      staleAfterMs: 60_000,
      sinceMs: 3_600_000,
    });
    expect(window.handlerTime).toMatchObject({
      sampled: 3,
      p50Ms: recorded.get('evt_mid'),
      maxMs: recorded.get('evt_slow'),
    });
    expect(window.handlerTime!.p50Ms).toBeGreaterThanOrEqual(
      Math.floor(measured.get('evt_mid')!) - 1,
    );
  });
});
