/**
 * A worker process of the multi-process tests, run through test-support/register. It opens the
 * target database with the raw driver and, when the parent says "go":
 * - `race`: delivers the same key `deliveries` times at once through an IdempotencyGuard and
 *   reports how each delivery ended;
 * - `crash-before-commit`: in transactional mode, writes the business row, tells the parent and
 *   hangs inside the open transaction (the parent SIGKILLs it);
 * - `crash-after-commit`: the same, but tells the parent after the transaction committed.
 */
import { IdempotencyGuard, RequestInProgress } from '@webhook-idempotency/core';
import { SqlStore } from '../../src';
import { connect, type Target } from './targets';

/** What the parent passes as the child's only argument (JSON). */
export interface ChildTask {
  readonly target: Target;
  readonly table: string;
  readonly effects: string;
  readonly mode: 'race' | 'crash-before-commit' | 'crash-after-commit';
  readonly keys: readonly string[];
  readonly deliveries: number;
}

/** How the race deliveries of one child ended, by key. */
export type RaceCounts = Record<
  string,
  { ran: number; replayed: number; inProgress: number; errors: string[] }
>;

const task = JSON.parse(process.argv[2]!) as ChildTask;
const send = (message: unknown) => process.send!(message);
const hang = () => new Promise<never>(() => setInterval(() => undefined, 1 << 30));

async function main(): Promise<void> {
  const { db, sql } = connect(task.target);
  const store = new SqlStore(db, { table: task.table });
  const write = (id: string, transaction?: unknown) =>
    sql.query(
      `INSERT INTO ${task.effects} (id, written_by) VALUES (?, ?)`,
      [id, process.pid],
      transaction,
    );
  // Open the pool's connections now, so that the race starts on warm connections.
  await Promise.all(Array.from({ length: 10 }, () => sql.query('SELECT 1', [])));
  const go = new Promise<number>((resolve) =>
    process.once('message', (message: { at: number }) => resolve(message.at)),
  );
  send({ type: 'ready' });
  // Every worker starts at the same wall-clock instant, not when its "go" happens to arrive.
  const at = await go;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

  if (task.mode === 'race') {
    const guard = new IdempotencyGuard(store, { staleAfterSeconds: 300 });
    const counts: RaceCounts = {};
    const deliveries = task.keys.flatMap((externalId) => {
      const count: RaceCounts[string] = { ran: 0, replayed: 0, inProgress: 0, errors: [] };
      counts[externalId] = count;
      return Array.from({ length: task.deliveries }, async () => {
        try {
          const outcome = await guard.run({ provider: 'race', externalId }, async () => {
            await write(externalId);
            // Stay in the handler a little so that other deliveries meet the fresh claim.
            await new Promise((resolve) => setTimeout(resolve, 100));
            return { by: process.pid };
          });
          if (outcome.isReplay) count.replayed++;
          else count.ran++;
        } catch (error) {
          if (error instanceof RequestInProgress) count.inProgress++;
          else count.errors.push(String(error));
        }
      });
    });
    await Promise.all(deliveries);
    send({ type: 'result', counts });
    return;
  }

  const guard = new IdempotencyGuard(store, { staleAfterSeconds: 60, transactional: true });
  const key = { provider: 'crash', externalId: task.keys[0]! };
  await guard.run(key, async ({ transaction }) => {
    await write(key.externalId, transaction);
    if (task.mode === 'crash-before-commit') {
      send({ type: 'written' });
      return hang();
    }
    return { by: process.pid };
  });
  send({ type: 'committed' });
  await hang();
}

main().then(
  () => process.exit(0),
  (error) => {
    send({ type: 'error', error: String(error?.stack ?? error) });
    process.exit(1);
  },
);
