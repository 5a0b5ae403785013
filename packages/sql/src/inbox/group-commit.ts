/**
 * @module Group commit for the inbox endpoint: deliveries that arrive while a commit is in flight
 * are written together in the next transaction, so a durable database pays one commit (one log
 * flush) for all of them instead of one each. Every caller is answered only after the transaction
 * holding its own row has committed; a group that fails is written again row by row, so one bad
 * delivery never fails the others.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { givenName, renamedOption } from '@webhook-idempotency/core/adapter';
import type { NewDelivery } from '@webhook-idempotency/core/inbox';
import type { Executor } from '../connections/executor';
import { type DialectSpec, isDuplicateKey } from '../dialects';
import type { InboxQueries } from './queries';
import type { SqlInboxOptions } from './types';

/** How a group is formed. */
export interface GroupCommitLimits {
  /** Most rows one transaction writes. */
  readonly groupSize: number;
  /**
   * How long the first row of a group waits for company, in milliseconds. 0: no wait (a row that
   * arrives while nothing is in flight is written at once; the ones that arrive meanwhile form the
   * next group), for drivers whose commits run concurrently with the event loop. A synchronous
   * driver (better-sqlite3) blocks the loop during its commit, so nothing can arrive meanwhile:
   * there the group is what arrived before the next turn of the event loop (`'turn'`).
   */
  readonly wait: number | 'turn';
  /** Transactions in flight at once; more rows queue for the next one. */
  readonly maxInFlight: number;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Groups concurrent writes into shared transactions; see the module's description. */
export class GroupCommit<T, R> {
  private readonly queue: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param writeGroup writes every item in one transaction, resolving with one result per item in
   *   order, only once that transaction has committed.
   * @param writeOne writes one item on its own (no group, or a group that failed).
   * @param limits how groups form.
   * @param onGroup told the size of each transaction written, for tests and metrics.
   */
  constructor(
    private readonly writeGroup: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly writeOne: (item: T) => Promise<R>,
    private readonly limits: GroupCommitLimits,
    private readonly onGroup?: (size: number) => void,
  ) {}

  /** Queues `item` for the next transaction; resolves with its result once that committed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limits.maxInFlight || this.queue.length === 0)
      return;
    const { wait, groupSize } = this.limits;
    if (wait === 0 || this.queue.length >= groupSize) {
      void this.flush();
      return;
    }
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      void this.flush();
    };
    if (wait === 'turn') setImmediate(go);
    else setTimeout(go, wait);
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.limits.maxInFlight || this.queue.length === 0) return;
    const group = this.queue.splice(0, this.limits.groupSize);
    this.inFlight++;
    try {
      if (group.length > 1) {
        const written = await this.writeGroup(group.map((waiting) => waiting.item)).then(
          (results) => results,
          () => undefined,
        );
        if (written !== undefined) {
          this.onGroup?.(group.length);
          for (const [index, waiting] of group.entries()) waiting.resolve(written[index] as R);
          return;
        }
      }
      // One row, or a group whose transaction failed (a row the database refused, a lost
      // connection): each row on its own, so each caller gets its own answer.
      await Promise.all(
        group.map((waiting) =>
          this.writeOne(waiting.item).then((result) => {
            this.onGroup?.(1);
            waiting.resolve(result);
          }, waiting.reject),
        ),
      );
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}

/** Most deliveries one group-commit transaction may store. */
const MAX_GROUP_COMMIT_SIZE = 1000;

/** The group commit `SqlInbox` writes through, or none when `option` is `false`. */
export function groupCommitFor(
  spec: DialectSpec,
  option: SqlInboxOptions['groupCommit'],
  writeGroup: (deliveries: readonly NewDelivery[]) => Promise<readonly boolean[]>,
  writeOne: (delivery: NewDelivery) => Promise<boolean>,
): GroupCommit<NewDelivery, boolean> | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null))
    throw new ConfigError('groupCommit', 'must be false or an object such as { groupSize: 64 }');
  const groupSize =
    (option && renamedOption(option, 'groupSize', 'maxBatch', 'groupCommit.')) ?? 64;
  if (!Number.isSafeInteger(groupSize) || groupSize < 1 || groupSize > MAX_GROUP_COMMIT_SIZE)
    throw new ConfigError(
      option ? givenName(option, 'groupSize', 'maxBatch', 'groupCommit.') : 'groupCommit.groupSize',
      `must be a whole number from 1 to ${MAX_GROUP_COMMIT_SIZE}, got ${String(groupSize)}`,
    );
  // One writer (SQLite): one transaction at a time, and a synchronous driver blocks the event loop
  // during its commit, so a group is what arrived before the loop's next turn. A server commits
  // concurrently: nothing waits, and what arrives during the commits in flight is next.
  const onCommit = option?.onCommit;
  if (onCommit !== undefined && typeof onCommit !== 'function')
    throw new ConfigError('groupCommit.onCommit', 'must be a function');
  const one = spec.singleWriter;
  return new GroupCommit(
    writeGroup,
    writeOne,
    { groupSize, wait: one ? 'turn' : 0, maxInFlight: one ? 1 : 4 },
    onCommit &&
      ((size) => {
        try {
          onCommit(size);
        } catch {
          // An observer never changes what is stored.
        }
      }),
  );
}

/** What the endpoint's writes run on. */
export interface InboxWriter {
  readonly executor: Executor;
  readonly spec: DialectSpec;
  readonly sql: InboxQueries;
}

/** One delivery's `INSERT`, in `transaction` when given (a group commit's) or on its own. */
export async function insertOne(
  { executor, spec, sql }: InboxWriter,
  delivery: NewDelivery,
  transaction?: unknown,
): Promise<boolean> {
  const { provider, externalId, orderingKey, headers, body } = delivery;
  try {
    const { affected } = await executor.query(
      sql.enqueue,
      [provider, externalId, orderingKey, JSON.stringify(headers), body],
      transaction,
    );
    return affected === 1;
  } catch (error) {
    // MySQL has no "do nothing" for the insert: its duplicate-key error undoes the statement
    // alone, and a group commit's transaction goes on. Any other error fails the group, which is
    // then written again row by row.
    if (isDuplicateKey(spec, error)) return false;
    throw error;
  }
}

/** Every delivery of a group commit in one transaction, in order. */
export function insertAll(
  writer: InboxWriter,
  deliveries: readonly NewDelivery[],
): Promise<boolean[]> {
  return writer.executor.transaction(async (transaction) => {
    const stored: boolean[] = [];
    for (const delivery of deliveries) stored.push(await insertOne(writer, delivery, transaction));
    return stored;
  });
}
