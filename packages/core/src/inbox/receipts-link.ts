/**
 * @module The inbox's side of the receipts: the guard its handlers run through, and how the inbox
 * writes in that guard's transactions. The link is read from the inbox's type
 * ({@link InboxReceiptsLink}: the receipts store it was built with, and its `completeIn`); the
 * worker runs first deliveries in groups only where the link holds and the store has the Store
 * contract's group operations.
 */
import { SECOND } from '../constants';
import { ConfigError } from '../errors';
import { IdempotencyGuard } from '../guard';
import type { Store } from '../types';
import type { InboxReceiptsLink } from './inbox-store';
import type { DeliveryLease, InboxEvent } from './types';

/** The options both the worker and the consumer take for their receipts. */
export interface ReceiptsOptions<Tx> {
  /**
   * The receipts store the handlers run through (`new SqlStore(db)`), transactional when it can
   * be: the business writes and the receipt commit together. Exactly one of `store` and `guard`.
   */
  store?: Store<Tx>;
  /** A ready guard instead of `store`; its `staleAfterSeconds` must not exceed `visibilityTimeoutSeconds`. */
  guard?: IdempotencyGuard<Tx>;
  /**
   * With `store` only: mixed into every handler's `effectKey(name)`; the same value as the HTTP
   * side's (`IdempotencyOptions.effectKeyNamespace`), so a delivery's keys do not depend on where
   * it ran. Defaults to none.
   */
  effectKeyNamespace?: string;
}

/**
 * The guard handlers run through: the user's, or one over `store` timed by `visibility` (seconds):
 * the receipts go stale at 90 % of it and a transactional handler's deadline is 80 %, so a
 * handler never outlives the lease (or the queue's visibility) it runs under.
 */
export function guardFor<Tx>(
  options: ReceiptsOptions<Tx>,
  visibility: number,
): IdempotencyGuard<Tx> {
  const { store, guard, effectKeyNamespace } = options;
  if ((store === undefined) === (guard === undefined))
    throw new ConfigError('store', 'exactly one of `store` and `guard` is required');
  if (guard !== undefined) {
    if (!(guard instanceof IdempotencyGuard))
      throw new ConfigError('guard', 'must be an IdempotencyGuard');
    if (effectKeyNamespace !== undefined)
      throw new ConfigError(
        'effectKeyNamespace',
        'configures the guard: pass it to `new IdempotencyGuard(...)`, or pass `store` instead of `guard`',
      );
    if (guard.staleAfterMs > visibility * SECOND)
      throw new ConfigError(
        'visibilityTimeoutSeconds',
        `must be at least the guard's staleAfterSeconds (${guard.staleAfterMs / SECOND}), so a taken-over delivery finds its receipt stale`,
      );
    return guard;
  }
  return new IdempotencyGuard(store as Store<Tx>, {
    staleAfterSeconds: visibility * 0.9,
    transactional: store!.capabilities?.transactional === true,
    handlerTimeoutSeconds: visibility * 0.8,
    effectKeyNamespace,
  });
}

/** Marks leased deliveries done inside a transaction of the receipts store: per lease, whether it was still held. */
export type CompleteIn = (
  leases: readonly DeliveryLease[],
  transaction: unknown,
) => Promise<boolean[]>;

/** How an inbox marks deliveries done inside the receipts' transactions: one at a time, and several at once. */
interface Link {
  readonly one: (lease: DeliveryLease, transaction: unknown) => Promise<boolean>;
  readonly many: CompleteIn;
}

/**
 * How `inbox` marks deliveries done inside the transactions of `guard`'s store, when it writes in
 * them and the guard runs handlers in transactions. Read from the inbox's link
 * ({@link InboxReceiptsLink}): built with this very store, it says so in `receipts` and marks done
 * with `completeIn`. An inbox built without a store may still find it by itself (`completerFor`,
 * deprecated). `undefined`: the worker marks deliveries done after each commit.
 */
function linkOf<Tx>(inbox: InboxReceiptsLink<Tx>, guard: IdempotencyGuard<Tx>): Link | undefined {
  if (!guard.transactional) return undefined;
  const { completeIn } = inbox;
  const many: CompleteIn | undefined =
    typeof completeIn === 'function'
      ? (leases, transaction) => completeIn.call(inbox, leases, transaction as Tx)
      : undefined;
  if (inbox.receipts !== undefined) {
    if (inbox.receipts !== guard.store || many === undefined) return undefined;
    return {
      one: async (lease, transaction) => (await many([lease], transaction))[0] === true,
      many,
    };
  }
  const one =
    typeof inbox.completerFor === 'function' ? inbox.completerFor(guard.store) : undefined;
  if (one === undefined) return undefined;
  const sequential: CompleteIn = async (leases, transaction) => {
    const done: boolean[] = [];
    for (const lease of leases) done.push(await one(lease, transaction));
    return done;
  };
  return { one, many: many ?? sequential };
}

/**
 * How the worker and the consumer mark one delivery done in its receipt's transaction, or
 * `undefined` where the inbox does not write in the transactions of `guard`'s store.
 */
export function completerOf<Tx>(
  inbox: InboxReceiptsLink<Tx>,
  guard: IdempotencyGuard<Tx>,
): ((lease: DeliveryLease, transaction: unknown) => Promise<boolean>) | undefined {
  return linkOf(inbox, guard)?.one;
}

/**
 * How the worker marks a group's deliveries done, where it runs first deliveries in groups: the
 * inbox writes in the transactions of `guard`'s store (as for {@link completerOf}), and the store has the
 * Store contract's group operations (`known`, `recordFirst`). `undefined`: every delivery runs on
 * its own.
 */
export function groupsOf<Tx>(
  inbox: InboxReceiptsLink<Tx>,
  guard: IdempotencyGuard<Tx>,
): CompleteIn | undefined {
  const { store } = guard;
  if (typeof store.known !== 'function' || typeof store.recordFirst !== 'function')
    return undefined;
  return linkOf(inbox, guard)?.many;
}

/** What {@link warnOfSetup} reports when the inbox names another receipts store than the guard's. */
export const RECEIPTS_NOT_THE_GUARDS = 'INBOX_RECEIPTS_NOT_THE_GUARDS';

/**
 * Reports, as `warning` events, what works against the inbox when `guard`'s handlers run in
 * transactions beside it: an inbox built with another receipts store than the guard's (its
 * deliveries are then marked done after each commit, never in groups), and what the inbox itself
 * says ({@link InboxReceiptsLink.cautionsFor}). Once, when a worker or consumer is built.
 */
export function warnOfSetup<Tx>(
  inbox: InboxReceiptsLink<Tx>,
  guard: IdempotencyGuard<Tx>,
  emit: (event: InboxEvent) => void,
): void {
  if (!guard.transactional) return;
  if (inbox.receipts !== undefined && inbox.receipts !== guard.store)
    emit({
      type: 'warning',
      code: RECEIPTS_NOT_THE_GUARDS,
      message:
        'The inbox was built with another receipts store than the one the handlers run through: its deliveries are marked done after each receipt commits, and never run in groups. Pass the same store to the inbox (new SqlInbox(db, { receipts: store })) and to the worker (store), or a guard over it.',
    });
  if (typeof inbox.cautionsFor !== 'function') return;
  for (const { code, message } of inbox.cautionsFor(guard.store))
    emit({ type: 'warning', code, message });
}
