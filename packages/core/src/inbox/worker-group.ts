/**
 * @module One group of the inbox worker: first deliveries run one after another in a single
 * transaction of the receipts store, through the guard (`IdempotencyGuard.group`): the guard reads
 * which of their keys have a receipt, runs their handlers with a first run's context, and records
 * their receipts by the Store contract; the inbox marks the deliveries done in that transaction
 * ({@link GroupRunScope.completeIn}). What the group has not started leaves it once the transaction
 * has run its window, and what a failure leaves is sorted for the lanes: charged, run again alone,
 * or run again in another group.
 */
import { AsyncResource } from 'node:async_hooks';
import { abortReason } from '../abort';
import { HandlerTimeout, StoreError } from '../errors';
import type { IdempotencyGuard } from '../guard';
import type { GroupMembers } from '../receipt-group';
import { isPermanent } from './handlers';
import type { CompleteIn } from './receipts-link';
import { errorText, type InboxHandler, refOf } from './run';
import type { Delivery, InboxEvent } from './types';

/** Why a delivery goes back to `pending` without a failure counted. */
export type GiveBackReason = 'in-progress' | 'store-error' | 'shutdown' | 'surplus';

/** What a group leaves to other transactions: first deliveries to group again, and deliveries to run alone. */
export interface GroupLeft {
  readonly later: Delivery[];
  readonly alone: Delivery[];
}

/** What a group needs of its worker. */
export interface GroupRunScope<Tx> {
  /** Marks the group's deliveries done in its transaction: the inbox writes in the receipts' transactions. */
  readonly completeIn: CompleteIn;
  readonly guard: IdempotencyGuard<Tx>;
  readonly handlers: Readonly<Record<string, InboxHandler<Tx>>>;
  /**
   * `groupWindowMs`: how far into its transaction a group still starts handlers; past it, what
   * the group has not started leaves it ({@link GroupRunScope.handOut}), even while a handler runs.
   */
  readonly windowMs: number;
  readonly emit: (event: InboxEvent) => void;
  /** True once the worker is stopping: a group starts no more handlers. */
  halting(): boolean;
  /** The receipts store committed a group: the run of store failures is over. */
  storeAnswered(): void;
  /** Queues what left a group that is still running, for the lanes free now. */
  handOut(left: GroupLeft): void;
  /** Lets go of `delivery` once `work` settles. */
  settleAs(delivery: Delivery, work: Promise<void>): Promise<void>;
  /** Gives `delivery` back without counting a failure, due after `delayMs`. */
  giveBack(delivery: Delivery, reason: GiveBackReason, delayMs: number): Promise<void>;
  /** Charges `delivery` with its handler's failure (`text`): a retry after a backoff, or dead. */
  failed(delivery: Delivery, text: string, permanent?: boolean): Promise<void>;
}

/** A group under way: what ran, what left, and the handler running. */
interface GroupState {
  /** When the group asked for its transaction (the guard's traces count from it). */
  readonly started: number;
  /** Deliveries handed to the worker while the group ran: no longer the group's. */
  readonly departed: Set<Delivery>;
  /** How many handlers returned in the group's transaction. */
  ran: number;
  /** The delivery whose handler is running, whether it ran first in the transaction, and what it threw. */
  current: Delivery | undefined;
  currentFirst: boolean;
  thrown: { error: unknown } | undefined;
  /** Set once the group has an outcome: nothing leaves it after that. */
  over: boolean;
}

/** A group that starts now: nothing ran, nothing left. */
function startedGroup(): GroupState {
  return {
    started: performance.now(),
    departed: new Set(),
    ran: 0,
    current: undefined,
    currentFirst: false,
    thrown: undefined,
    over: false,
  };
}

/**
 * Runs `group` (deliveries without a failure yet) in one transaction of the receipts store,
 * through the guard: their handlers one after another, then their receipts and their `done`, one
 * commit. Deliveries that have a receipt already leave the group at once, to run on their own
 * where their receipt decides; so does, as soon as the transaction has run the window (even while
 * a handler still runs) or the worker stops, every delivery the group has not started: the worker
 * queues them ({@link GroupRunScope.handOut}) for the lanes free then, so a slow handler never keeps
 * them waiting. Resolves with what a rollback leaves: `later`, first deliveries for another group
 * (those a failed handler's rollback took with it), and `alone`, deliveries that run on their own
 * (the group failed in the store, or a handler that failed after others ran in the same
 * transaction, which may have left it unusable). A handler that threw or passed its deadline as
 * the transaction's first is that delivery's failure; a stop mid-run gives the group back.
 */
export async function runGroup<Tx>(
  scope: GroupRunScope<Tx>,
  group: readonly Delivery[],
  signal: AbortSignal,
): Promise<GroupLeft> {
  const state = startedGroup();
  const run = new AbortController();
  const timeoutMs = scope.guard.handlerTimeoutMs;
  const timer = setTimeout(() => {
    const at = state.current ?? group[0]!;
    run.abort(new HandlerTimeout(at.provider, at.externalId, timeoutMs));
  }, timeoutMs);
  timer.unref?.();
  const onStop = () => run.abort(abortReason(signal));
  if (signal.aborted) onStop();
  else signal.addEventListener('abort', onStop, { once: true });
  // Ended at the deadline or by stop() even if the store never settles the transaction.
  let onEnd!: () => void;
  const ended = new Promise<never>((_, reject) => {
    onEnd = () => reject(abortReason(run.signal));
    run.signal.addEventListener('abort', onEnd, { once: true });
  });
  ended.catch(() => undefined);
  let results: { ran: Delivery[]; done: boolean[] } | undefined;
  let failure: unknown;
  try {
    const work = inTransaction(scope, group, state, run.signal, timeoutMs);
    work.catch(() => undefined);
    results = await Promise.race([work, ended]);
  } catch (error) {
    failure = error;
  } finally {
    state.over = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onStop);
    run.signal.removeEventListener('abort', onEnd);
  }
  if (results === undefined) return rolledBack(scope, state, group, failure, run.signal, signal);
  committed(scope, results);
  return { later: [], alone: [] };
}

/**
 * The group's transaction, through the guard: its members run, their receipts recorded, their
 * deliveries marked done before the commit. Resolves with the deliveries that ran, in the order
 * they ran, and whether each was done (`false`: its lease was lost).
 */
async function inTransaction<Tx>(
  scope: GroupRunScope<Tx>,
  group: readonly Delivery[],
  state: GroupState,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ ran: Delivery[]; done: boolean[] }> {
  // What leaves is queued in this async context, not in the transaction's: a lane it starts must
  // not be taken for part of the transaction (a single-connection store would run it inside).
  const outside = new AsyncResource('webhook-idempotency.group');
  const leave = (left: GroupLeft) => outside.runInAsyncScope(() => scope.handOut(left));
  const keys = group.map(({ provider, externalId }) => ({ provider, externalId }));
  const { ran, written } = await scope.guard.group(
    keys,
    membersOf(scope, group, state, signal, leave),
    {
      signal,
      timeoutMs,
      started: state.started,
      beforeCommit: (transaction, indexes) =>
        scope.completeIn(
          indexes.map((i) => group[i]!),
          transaction,
        ),
    },
  );
  return { ran: ran.map((i) => group[i]!), done: written ?? [] };
}

/** The group committed: each delivery it ran is reported (done, or its lease lost) and its part ended. */
function committed<Tx>(
  scope: GroupRunScope<Tx>,
  { ran, done }: { ran: Delivery[]; done: boolean[] },
): void {
  scope.storeAnswered();
  ran.forEach((delivery, i) => {
    scope.emit(
      done[i]
        ? { type: 'processed', delivery: refOf(delivery), replayed: false }
        : { type: 'lease-lost', delivery: refOf(delivery) },
    );
    void scope.settleAs(delivery, Promise.resolve());
  });
}

/**
 * The group's work in its transaction: hands out at once the deliveries that have a receipt, then
 * runs the others' handlers one after another until the window has passed (a timer hands out the
 * rest while a slow handler still runs) or the worker stops.
 */
function membersOf<Tx>(
  scope: GroupRunScope<Tx>,
  group: readonly Delivery[],
  state: GroupState,
  signal: AbortSignal,
  leave: (left: GroupLeft) => void,
) {
  const depart = (later: Delivery[], alone: Delivery[]) => {
    if (state.over || later.length + alone.length === 0) return;
    for (const delivery of [...later, ...alone]) state.departed.add(delivery);
    leave({ later, alone });
  };
  return async (members: GroupMembers<Tx>): Promise<void> => {
    // The window counts from the transaction's start, not from the wait for its connection.
    const opened = performance.now();
    const rest = group.filter((_, i) => !members.known[i]);
    depart(
      [],
      group.filter((_, i) => members.known[i]),
    );
    const window = setTimeout(() => depart(rest.splice(0), []), scope.windowMs);
    window.unref?.();
    try {
      while (rest.length > 0) {
        if (scope.halting() || (state.ran > 0 && performance.now() - opened > scope.windowMs))
          depart(rest.splice(0), []);
        else await runMember(scope, group, rest.shift()!, members, state, signal);
      }
    } finally {
      clearTimeout(window);
    }
    state.current = undefined;
  };
}

/** Runs one delivery's handler in the group's transaction, through the guard. */
async function runMember<Tx>(
  scope: GroupRunScope<Tx>,
  group: readonly Delivery[],
  delivery: Delivery,
  members: GroupMembers<Tx>,
  state: GroupState,
  signal: AbortSignal,
): Promise<void> {
  state.current = delivery;
  state.currentFirst = state.ran === 0;
  const handler = scope.handlers[delivery.provider]!;
  try {
    await members.run(group.indexOf(delivery), async (context) => {
      const value = await handler(delivery, { ...context, signal });
      if (signal.aborted) throw abortReason(signal);
      return value;
    });
  } catch (error) {
    state.thrown = { error };
    throw error;
  }
  state.ran++;
}

/**
 * Sorts what a rolled-back group leaves (the deliveries still its own): given back on a stop, the
 * handler's failure charged, or run again alone or in another group.
 */
async function rolledBack<Tx>(
  scope: GroupRunScope<Tx>,
  state: GroupState,
  group: readonly Delivery[],
  failure: unknown,
  run: AbortSignal,
  signal: AbortSignal,
): Promise<GroupLeft> {
  const own = group.filter((d) => !state.departed.has(d));
  if (signal.aborted) {
    await Promise.all(own.map((d) => scope.settleAs(d, scope.giveBack(d, 'shutdown', 0))));
    return { later: [], alone: [] };
  }
  const { current, thrown } = state;
  const timedOut = run.reason instanceof HandlerTimeout;
  // The handler's own failure, unless its connection failed under it (a StoreError the handler
  // did not throw itself): that is the store's, and every delivery of the group runs again on its own.
  const culprit =
    current !== undefined &&
    (timedOut ||
      (thrown !== undefined && !(failure instanceof StoreError && failure !== thrown.error)))
      ? current
      : undefined;
  if (culprit !== undefined && !state.currentFirst) {
    // Others ran before it in that transaction and may have left it unusable (a statement of
    // theirs that failed and was caught, a setting): it is judged again on its own, uncharged.
    return { later: own.filter((d) => d !== culprit), alone: [culprit] };
  }
  if (culprit === undefined) {
    // The store failed the group (or a receipt of it was written meanwhile: GroupConflict):
    // reported (as the event's `operation: 'group'`), and each delivery runs again on its own,
    // where its receipt decides.
    scope.emit({ type: 'store-error', operation: 'group', error: failure });
    return { later: [], alone: own };
  }
  const text = errorText(timedOut ? run.reason : thrown!.error);
  const permanent = !timedOut && isPermanent(thrown!.error);
  await scope.settleAs(culprit, scope.failed(culprit, text, permanent));
  return { later: own.filter((d) => d !== culprit), alone: [] };
}

/**
 * The queue's units for what left a group: each delivery to run alone on its own, the first
 * deliveries spread over `free` lanes (at least one group).
 */
export function unitsOf(left: GroupLeft, free: number, groupSize: number): Delivery[][] {
  return [
    ...left.alone.map((d) => [d]),
    ...groupsOfFirst(left.later, Math.max(1, free), groupSize),
  ];
}

/** First deliveries in at most `lanes` groups of at most `groupSize`, as even as can be. */
export function groupsOfFirst(
  first: readonly Delivery[],
  lanes: number,
  groupSize: number,
): Delivery[][] {
  if (first.length === 0 || lanes <= 0) return [];
  const size = Math.min(groupSize, Math.ceil(first.length / lanes));
  const groups: Delivery[][] = [];
  for (let i = 0; i < first.length; i += size) groups.push(first.slice(i, i + size));
  return groups;
}
