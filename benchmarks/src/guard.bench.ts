/**
 * @module In-process cost of the guard with the in-memory store: first deliveries and replays,
 * against a baseline of calling the same handler directly, measured in the same run. Also
 * checks that the per-call cost does not grow with the number of stored receipts.
 */
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';

export interface GuardBenchResult {
  name: string;
  nsPerOp: number;
}

/** Heap in use after a full collection (needs `--expose-gc`), MiB. */
function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/**
 * The default `InMemoryStore` bound at work: the heap after `first` and after `first + more`
 * first deliveries (unique keys), each measured after a full collection.
 */
export async function boundedHeap(
  first = 20_000,
  more = 200_000,
): Promise<{ after: number; heapMiB: number }[]> {
  const guard = new IdempotencyGuard(new InMemoryStore());
  const points: { after: number; heapMiB: number }[] = [];
  let i = 0;
  for (const count of [first, more]) {
    for (const end = i + count; i < end; i++)
      await guard.run(new RequestKey('heap', `e-${i}`), handler);
    points.push({ after: i, heapMiB: heapMiB() });
  }
  return points;
}

async function measure(
  name: string,
  ops: number,
  fn: (i: number) => Promise<unknown>,
): Promise<GuardBenchResult> {
  for (let i = 0; i < Math.min(ops, 5_000); i++) await fn(-1 - i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await fn(i);
  const elapsed = Number(process.hrtime.bigint() - start);
  return { name, nsPerOp: elapsed / ops };
}

const handler = async () => ({ received: true });

export async function runGuardBench(ops = 100_000): Promise<GuardBenchResult[]> {
  const results: GuardBenchResult[] = [];
  results.push(await measure('baseline: handler called directly', ops, () => handler()));

  const guard = new IdempotencyGuard(new InMemoryStore());
  results.push(
    await measure('first delivery (claim + run + complete)', ops, (i) =>
      guard.run(new RequestKey('bench', `first-${i}`), handler),
    ),
  );

  const replayKey = new RequestKey('bench', 'replayed');
  await guard.run(replayKey, handler);
  results.push(
    await measure('replay of a completed delivery', ops, () => guard.run(replayKey, handler)),
  );

  // The same two measurements on a store that already holds many receipts.
  // Unbounded, so that 500k receipts really are held (the default bound keeps 10,000).
  const big = new IdempotencyGuard(new InMemoryStore({ maxReceipts: Number.POSITIVE_INFINITY }));
  for (let i = 0; i < 500_000; i++) await big.run(new RequestKey('bench', `fill-${i}`), handler);
  results.push(
    await measure('first delivery, 500k receipts stored', ops, (i) =>
      big.run(new RequestKey('bench', `more-${i}`), handler),
    ),
  );
  results.push(
    await measure('replay, 500k receipts stored', ops, (i) =>
      big.run(new RequestKey('bench', `fill-${i}`), handler),
    ),
  );
  return results;
}

// Run as its own (bundled, pinned) process by run.ts: prints the results as JSON.
if (require.main === module) {
  void (async () => {
    const results = await runGuardBench();
    const heap = await boundedHeap();
    process.stdout.write(JSON.stringify({ results, heap }));
  })();
}
