/**
 * @module Receipt groups: several first runs in one transaction of the receipts store, their
 * receipts recorded together. The store reads which keys it knows ({@link Store.known}), the
 * handlers of the others run one after another in the transaction, and one
 * {@link Store.recordFirst} writes their `completed` receipts (attempt 1, each with its own handler
 * time), all or nothing, before the commit. What a completed receipt holds is decided here and by
 * the Store contract alone, for a group as for a single run: no store writes one any other way.
 *
 * The inbox worker's groups run through it (`IdempotencyGuard.group`). Without a transaction (a
 * store that has none) a group still records all or nothing, but the handlers' own writes are not
 * undone when it conflicts: the worker groups only where the store has transactions and the inbox
 * writes in them.
 */
import { DeliveryOutcome } from './constants';
import type { EffectKeys } from './effect-key';
import { ConfigError } from './errors';
import { RequestKey, type KeyLike } from './request-key';
import type { Trace, Tracer } from './trace';
import type { Codec, FirstRun, RunContext, Store } from './types';

/**
 * A key of the group was given a receipt by another run after the group read its keys: the group
 * records nothing and its transaction rolls back, so each of its first runs can run again on its
 * own, where the receipt decides.
 */
export class GroupConflict extends Error {
  constructor() {
    super('a receipt of this group was written meanwhile by another run');
    this.name = 'GroupConflict';
  }
}

/** What a group needs of its guard: the store, the codec its results are stored with, the clock and the tracer. */
export interface GroupEnv<R, Tx> {
  readonly store: Store<Tx>;
  readonly codec: Codec<R>;
  readonly clock: () => number;
  readonly tracer: Tracer;
  /** Each run's `effectKey`, under the guard's namespace. */
  readonly effectKeys: EffectKeys;
}

/** A group's open transaction, as its work sees it. */
export interface GroupMembers<Tx> {
  /** Per key of the group, in order: `true` when it had a receipt as the group read them; its handler must not run in the group. */
  readonly known: readonly boolean[];
  /**
   * Runs the handler of the group's `index`-th key in the group's transaction, with the context of
   * a first run (attempt 1, no retry). What it returns is encoded by the guard's codec and recorded
   * with the group; what it throws rejects this call, and nothing is recorded for it.
   * @throws {ConfigError} for an index that is not a key of the group, known, or already run.
   */
  run(index: number, handler: (context: RunContext<Tx>) => unknown): Promise<void>;
}

/** How a group runs. */
export interface GroupOptions<Tx, W> {
  /** Ends the group's transaction at once (the deadline, a stop): it rolls back and the group rejects. */
  readonly signal?: AbortSignal;
  /** The deadline in milliseconds, for a store that also enforces it server-side. */
  readonly timeoutMs?: number;
  /** When the group asked for its transaction (`performance.now()`): each member's `delivered` event is timed from it. */
  readonly started?: number;
  /**
   * More writes in the group's transaction, once its receipts are recorded and before the commit
   * (the inbox marks the group's deliveries done): gets the transaction (`undefined` without one)
   * and the indexes of the keys that ran, in the order they ran.
   */
  readonly beforeCommit?: (transaction: Tx | undefined, ran: readonly number[]) => Promise<W>;
}

/** What a committed group did. */
export interface GroupResult<W> {
  /** The indexes of the keys that ran and were recorded, in the order they ran. */
  readonly ran: readonly number[];
  /** What `beforeCommit` resolved with; `undefined` when nothing ran (it is not called then). */
  readonly written: W | undefined;
}

/** A member that ran: its index, its receipt, its trace. */
interface Ran {
  readonly index: number;
  readonly entry: FirstRun;
  readonly trace: Trace;
}

/**
 * Runs `work` over `keys` as one group: in one transaction of the store when it has them, else
 * without one. Resolves once committed; every member that ran reports its `delivered` event then.
 * @throws {GroupConflict} a key that ran was given a receipt meanwhile: nothing is recorded, rolled back.
 * @throws {ConfigError} naming `store` when it has no group operations (`known`, `recordFirst`).
 * @throws whatever `work`, `beforeCommit` or the store threw, rolled back.
 */
export async function runReceiptGroup<R, Tx, W>(
  env: GroupEnv<R, Tx>,
  keys: readonly KeyLike[],
  work: (members: GroupMembers<Tx>) => Promise<void>,
  options: GroupOptions<Tx, W> = {},
): Promise<GroupResult<W>> {
  const { store } = env;
  if (typeof store.known !== 'function' || typeof store.recordFirst !== 'function')
    throw new ConfigError('store', 'has no group operations (Store.known and Store.recordFirst)');
  const requestKeys = keys.map((key) => RequestKey.from(key));
  const started = options.started ?? env.tracer.now();
  const ran: Ran[] = [];
  const body = async (transaction: Tx | undefined): Promise<W | undefined> => {
    const known = await store.known!(requestKeys, { now: env.clock() }, transaction);
    await work(membersOf(env, requestKeys, known, transaction, started, ran));
    if (ran.length === 0) return undefined;
    const entries = ran.map((member) => member.entry);
    if (!(await store.recordFirst!(entries, { now: env.clock() }, transaction)))
      throw new GroupConflict();
    return options.beforeCommit?.(
      transaction,
      ran.map((member) => member.index),
    );
  };
  const { signal, timeoutMs } = options;
  const written = store.withTransaction
    ? await store.withTransaction((transaction) => body(transaction), { signal, timeoutMs })
    : await body(undefined);
  for (const member of ran) member.trace.delivered(DeliveryOutcome.FIRST, undefined);
  return { ran: ran.map((member) => member.index), written };
}

/** The members of a group's open transaction: the keys it knew, and how a handler runs in it. */
function membersOf<R, Tx>(
  env: GroupEnv<R, Tx>,
  keys: readonly RequestKey[],
  known: readonly boolean[],
  transaction: Tx | undefined,
  started: number,
  ran: Ran[],
): GroupMembers<Tx> {
  const taken = new Set<number>();
  return {
    known,
    async run(index, handler) {
      const key = keys[index];
      if (key === undefined || known[index] || taken.has(index))
        throw new ConfigError('index', `is not a key of the group that may run now: ${index}`);
      taken.add(index);
      const trace = env.tracer.open(key, started, 1);
      trace.running();
      const began = performance.now();
      const value = await handler({
        key,
        attempts: 1,
        isRetry: false,
        transaction,
        effectKey: env.effectKeys(key),
      });
      const handlerMs = performance.now() - began;
      trace.handed();
      const response = env.codec.encode(value as R);
      ran.push({ index, entry: { key, response, handlerMs }, trace });
    },
  };
}
