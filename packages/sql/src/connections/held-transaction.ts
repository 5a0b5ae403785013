/**
 * @module A transaction the executor began itself on a connection it holds (pg's pooled client,
 * mysql2's pooled connection, Kysely's `startTransaction()`): how it ends is the same for each of
 * them (gate the handle, commit, roll back, close at the deadline, report a lost connection as
 * the store's failure); what the driver does at each step is the driver's ({@link HeldConnection}).
 */
import { StoreError } from '@webhook-idempotency/core';
import { gate, type Gate, untilAborted } from './executor';

/** One begun transaction, by what its driver does to end it and to give its connection back. */
export interface HeldConnection {
  /** What the handler's handle stands for (gated while the transaction is open). */
  readonly handle: object;
  /** Statements run inside the transaction before the work (a lock, the deadline's bounds). */
  setup?(): Promise<unknown>;
  commit(): Promise<unknown>;
  rollback(): Promise<unknown>;
  /**
   * Gives the connection back once the transaction ended by a commit or a rollback. True when the
   * connection was lost under the work: nothing it wrote committed, whatever the rollback said.
   */
  giveBack(): boolean;
  /** At the deadline a statement of the handler may be in flight: end the transaction without waiting for it. */
  abandon(): void;
  /** The rollback could not be sent: the connection failed under the work. */
  discard(rollbackError: unknown): void;
}

/**
 * Runs `work` in the begun transaction of `held`: commits when it resolves, rolls back when it
 * rejects, abandons the transaction at once when `signal` aborts. A rollback that could not be
 * sent, or a connection lost under the work, makes this a `StoreError` whose cause is what the
 * work rejected with (its next statement's error, typically: see Store.withTransaction).
 */
export async function runHeldTransaction<T>(
  held: HeldConnection,
  work: (transaction: unknown) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const state: Gate = { closed: undefined };
  try {
    await held.setup?.();
    const result = await untilAborted(work(gate(held.handle, state)), signal);
    state.closed = 'committed';
    await held.commit();
    held.giveBack();
    return result;
  } catch (error) {
    if (signal?.aborted) {
      state.closed = 'timed out';
      held.abandon();
      throw error;
    }
    state.closed = 'rolled back';
    try {
      await held.rollback();
    } catch (rollbackError) {
      held.discard(rollbackError);
      throw new StoreError('transaction', error);
    }
    if (held.giveBack()) throw new StoreError('transaction', error);
    throw error;
  }
}
