/**
 * @module `SqlInbox.backlog`: the inbox's operational figures in two grouped reads, each served by
 * an index and bounded by a row limit, written once from the dialect fragments. The unfinished
 * deliveries are read oldest first from the index over them alone (the claim's, see
 * `InboxFragments.unfinished`), never walking the finished history; the finished ones newest
 * first from `(finished_at, id)`, inside the window only.
 */
import type { BacklogInput, InboxBacklog } from '@webhook-idempotency/core/inbox';
import {
  backlogTallies,
  type ResolvedBacklogInput,
  resolveBacklogInput,
} from '@webhook-idempotency/core/adapter';
import type { Executor } from '../connections/executor';
import type { DialectSpec } from '../dialects';
import { text } from './rows';

export type { BacklogInput, InboxBacklog };

/** The time bound of each read: a lease call's default (`leaseTimeoutMs`). */
const READ_TIMEOUT_MS = 5000;

/** The two statements of one table, by the number of providers with a threshold of their own. */
export interface BacklogQueries {
  /** Params: provider and ms of each own threshold, the default ms, then the limit. */
  unfinished(thresholds: number): string;
  /** Params: provider and ms of each own threshold, the default ms, the window's ms, then the limit. */
  finished(thresholds: number): string;
}

/** Builds the backlog statements for `table` (an identifier already validated). */
export function buildBacklogQueries(dialect: DialectSpec, table: string): BacklogQueries {
  const { inbox } = dialect;
  const t = dialect.quote(table);
  const hint =
    inbox.unfinished.hint?.({
      open: dialect.quote(`${table}_open_idx`),
      finished: dialect.quote(`${table}_finished_idx`),
    }) ?? '';
  // Each provider's threshold applied to a time: `CASE provider WHEN ? THEN <time ± ?> … ELSE <time ± ?> END`,
  // so a comparison stays on the timestamps as stored, in the database's own time arithmetic.
  // Without thresholds of their own, the default's alone (a CASE needs a WHEN).
  const perProvider = (thresholds: number, shifted: string) =>
    thresholds === 0
      ? shifted
      : `CASE provider ${Array.from({ length: thresholds }, () => `WHEN ? THEN ${shifted}`).join(' ')} ELSE ${shifted} END`;
  const oldestAge = `${dialect.nowMs} - ${dialect.toMs('MIN(received_at)')}`;
  return {
    unfinished: (thresholds) =>
      `SELECT provider, COUNT(*) AS n, ` +
      `SUM(CASE WHEN received_at <= ${perProvider(thresholds, dialect.minusMs(dialect.now))} THEN 1 ELSE 0 END) AS stuck, ` +
      `${oldestAge} AS oldest_age_ms ` +
      `FROM (SELECT d.provider, d.received_at FROM ${t} d${hint} WHERE d.finished_at IS NULL ORDER BY d.id LIMIT ?) u ` +
      `GROUP BY provider`,
    finished: (thresholds) =>
      `SELECT provider, COUNT(*) AS n, SUM(CASE WHEN status = 'dead' THEN 1 ELSE 0 END) AS died, ` +
      `SUM(CASE WHEN finished_at > ${perProvider(thresholds, inbox.plusMs('received_at'))} THEN 1 ELSE 0 END) AS late ` +
      `FROM (SELECT provider, status, received_at, finished_at FROM ${t} ` +
      `WHERE finished_at >= ${dialect.minusMs(dialect.now)} ORDER BY finished_at DESC LIMIT ?) f ` +
      `GROUP BY provider`,
  };
}

/**
 * How a read is bounded, as the claim is (`InboxFragments.boundLease`): a time limit, and on
 * PostgreSQL no sort, so the planner walks the index in order and stops at the limit even while
 * the table's statistics lag a burst.
 */
export type BoundRead = (select: string) => {
  readonly setup: string | null;
  readonly select: string;
};

/** One bounded read: with a setup, both in one transaction (the setup ends with it). */
function boundedQuery(executor: Executor, bound: BoundRead, statement: string, params: unknown[]) {
  const { setup, select } = bound(statement);
  if (setup === null) return executor.query(select, params);
  return executor.transaction(async (transaction) => {
    await executor.query(setup, [], transaction);
    return executor.query(select, params, transaction);
  });
}

/**
 * `SqlInbox.backlog`: the unfinished part, and with a window the finished part, side by side,
 * each bounded by `limit` rows and, like a claim, by its time limit without a sort; merged per
 * provider. @throws {ConfigError} for a threshold or window that is not > 0, or a bad `limit`.
 */
export async function readInboxBacklog(
  executor: Executor,
  spec: DialectSpec,
  table: string,
  input: BacklogInput,
): Promise<InboxBacklog> {
  const resolved = resolveBacklogInput(input);
  const sql = buildBacklogQueries(spec, table);
  return readBacklog(
    executor,
    sql,
    (select) => spec.inbox.boundLease(select, READ_TIMEOUT_MS),
    resolved,
  );
}

/** Runs the backlog's reads (the finished one only with a window) and merges them per provider. */
async function readBacklog(
  executor: Executor,
  sql: BacklogQueries,
  bound: BoundRead,
  input: ResolvedBacklogInput,
): Promise<InboxBacklog> {
  const own = [...input.byProvider];
  const thresholdParams = [...own.flat(), input.stuckAfterMs];
  const window = input.finishedWithinMs;
  const [unfinished, finished] = await Promise.all([
    boundedQuery(executor, bound, sql.unfinished(own.length), [...thresholdParams, input.limit]),
    window === undefined
      ? undefined
      : boundedQuery(executor, bound, sql.finished(own.length), [
          ...thresholdParams,
          window,
          input.limit,
        ]),
  ]);
  const tallies = backlogTallies();
  let unfinishedRead = 0;
  let finishedRead = 0;
  for (const row of unfinished.rows) {
    const t = tallies.of(text(row.provider));
    t.unfinished = Number(row.n);
    t.stuck = Number(row.stuck);
    t.oldestAgeMs = Math.max(0, Number(row.oldest_age_ms));
    unfinishedRead += t.unfinished;
  }
  for (const row of finished?.rows ?? []) {
    const t = tallies.of(text(row.provider));
    t.finished = Number(row.n);
    t.died = Number(row.died);
    t.late = Number(row.late);
    finishedRead += t.finished;
  }
  return {
    providers: tallies.sorted(),
    complete: unfinishedRead < input.limit && finishedRead < input.limit,
  };
}
