/**
 * @module OpenTransaction: what a caller holding a claim's open store transaction may do with it
 * (commit, roll back, hear of an early end, run code in its async context). Its implementation is
 * `TicketTransaction`, opened by a ticket's `begin()`.
 */
import type { StoreError } from './errors';
import type { RunContext } from './types';

/**
 * A claim's store transaction, open until {@link OpenTransaction.commit} or
 * {@link OpenTransaction.rollback} ends it (or the handler deadline does: see
 * {@link OpenTransaction.onEnded}). Business writes go through `context.transaction`.
 *
 * @example
 * const open = await claim.begin();
 * try {
 *   await open.context.transaction.query('UPDATE orders SET paid = true WHERE id = $1', [id]);
 *   await open.commit({ paid: true }); // the receipt completes in the same transaction
 * } catch (error) {
 *   await open.rollback(error);
 * }
 */
export interface OpenTransaction<R = unknown, Tx = never> {
  /** The key, the attempt and the open transaction (`transaction` is set). */
  readonly context: RunContext<Tx>;
  /**
   * Records `response` as the key's result inside the transaction, then commits; both commit or
   * neither does. On a failure the transaction is rolled back and the receipt marked `failed`
   * (except for a lost claim, which is another worker's now).
   * @throws {ClaimLost} the claim was taken over; nothing was recorded.
   * @throws {HandlerTimeout} the deadline ended the transaction first.
   * @throws {StoreError} the completion or the commit failed.
   */
  commit(response: R): Promise<void>;
  /**
   * Rolls the transaction back and marks the receipt `failed` with the error's text. Never rejects.
   * Resolves with a {@link StoreError} when the store reports that the transaction's connection
   * failed under the work (a database restart, a cut connection): `error` was a consequence of it
   * (the handler's next statement failed), so answer a store failure (503), not the handler's
   * error. Resolves with `undefined` otherwise (and after an early end, which
   * {@link OpenTransaction.onEnded} reported).
   */
  rollback(error: unknown): Promise<StoreError | undefined>;
  /**
   * Calls `listener` once if the transaction ends before `commit` or `rollback` was called (the
   * handler deadline: a {@link HandlerTimeout}). The receipt is marked `failed` by then, and the
   * handle refuses further statements.
   */
  onEnded(listener: (error: unknown) => void): void;
  /**
   * Calls `fn` in the async context of the transaction, so that statements it issues through
   * the store's own connection without the handle (a nested guard, `guard.find`) are seen as part
   * of the transaction instead of waiting for it (single-connection stores such as better-sqlite3).
   */
  enter<T>(fn: () => T): T;
}
