/**
 * @module The input of `InboxStore.backlog` checked once for every store, and the computation over
 * rows `InMemoryInbox` uses (the types are in figures.ts).
 */
import { ConfigError } from '../errors';
import type { BacklogInput, InboxBacklog, ProviderBacklog } from './figures';
import { numberOption } from './run';

/** The default and largest number of rows one part of a backlog read takes. */
export const BACKLOG_LIMITS = { default: 10_000, max: 100_000 } as const;

/** A backlog input, checked, with its defaults; `thresholdOf` gives each provider's threshold. */
export interface ResolvedBacklogInput {
  readonly stuckAfterMs: number;
  readonly byProvider: ReadonlyMap<string, number>;
  readonly finishedWithinMs: number | undefined;
  readonly limit: number;
  thresholdOf(provider: string): number;
}

/**
 * An `InboxStore.backlog` input, checked, with its defaults: what `SqlInbox` and `InMemoryInbox`
 * both take; for other inbox stores' authors.
 * @throws {ConfigError} for a threshold or window that is not a number > 0, or a `limit` that is
 * not a whole number from 1 to 100 000.
 */
export function resolveBacklogInput(input: BacklogInput): ResolvedBacklogInput {
  if (typeof input !== 'object' || input === null)
    throw new ConfigError('input', 'must be an object with stuckAfterMs');
  const { stuckAfterMs, finishedWithinMs, limit = BACKLOG_LIMITS.default } = input;
  positive('stuckAfterMs', stuckAfterMs);
  if (finishedWithinMs !== undefined) positive('finishedWithinMs', finishedWithinMs);
  numberOption('limit', limit, 1, true, BACKLOG_LIMITS.max);
  const byProvider = new Map<string, number>();
  const overrides = input.stuckAfterMsByProvider ?? {};
  if (typeof overrides !== 'object' || overrides === null)
    throw new ConfigError('stuckAfterMsByProvider', 'must be an object of provider → milliseconds');
  for (const [provider, ms] of Object.entries(overrides)) {
    positive(`stuckAfterMsByProvider.${provider}`, ms);
    byProvider.set(provider, ms);
  }
  return {
    stuckAfterMs,
    byProvider,
    finishedWithinMs,
    limit,
    thresholdOf: (provider) => byProvider.get(provider) ?? stuckAfterMs,
  };
}

function positive(option: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new ConfigError(option, `must be a number of milliseconds > 0, got ${String(value)}`);
}

/** What the computation needs of a stored delivery. */
export interface BacklogRow {
  readonly id: number;
  readonly provider: string;
  readonly status: string;
  readonly receivedAt: number;
  readonly finishedAt: number | null;
}

/** One provider's counts while a backlog is read, every field writable. */
export type BacklogTally = { -readonly [K in keyof ProviderBacklog]: ProviderBacklog[K] };

/**
 * The per-provider counts of a backlog being read: `of(provider)` gives a provider's (all zero the
 * first time), `sorted()` every provider's, by name. Shared by every inbox store's `backlog`.
 */
export function backlogTallies(): {
  of(provider: string): BacklogTally;
  sorted(): BacklogTally[];
} {
  const tallies = new Map<string, BacklogTally>();
  return {
    of(provider) {
      let found = tallies.get(provider);
      if (!found) {
        found = {
          provider,
          unfinished: 0,
          stuck: 0,
          oldestAgeMs: null,
          finished: 0,
          died: 0,
          late: 0,
        };
        tallies.set(provider, found);
      }
      return found;
    },
    sorted: () =>
      [...tallies.values()].sort((a, b) =>
        a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0,
      ),
  };
}

/**
 * The backlog of `rows` (in id order) at `now`, as `SqlInbox` reads it from its table: the oldest
 * `limit` unfinished rows, and the `limit` most recently finished within the window.
 */
export function backlogOf(
  rows: Iterable<BacklogRow>,
  now: number,
  input: ResolvedBacklogInput,
): InboxBacklog {
  const tallies = backlogTallies();
  const unfinished: BacklogRow[] = [];
  const finished: BacklogRow[] = [];
  const since = input.finishedWithinMs === undefined ? null : now - input.finishedWithinMs;
  for (const row of rows) {
    if (row.finishedAt === null) unfinished.push(row);
    else if (since !== null && row.finishedAt >= since) finished.push(row);
  }
  for (const row of unfinished.slice(0, input.limit)) {
    const t = tallies.of(row.provider);
    const age = now - row.receivedAt;
    t.unfinished++;
    if (age >= input.thresholdOf(row.provider)) t.stuck++;
    t.oldestAgeMs = Math.max(t.oldestAgeMs ?? 0, age);
  }
  finished.sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0) || b.id - a.id);
  for (const row of finished.slice(0, input.limit)) {
    const t = tallies.of(row.provider);
    t.finished++;
    if (row.status === 'dead') t.died++;
    if ((row.finishedAt ?? 0) - row.receivedAt > input.thresholdOf(row.provider)) t.late++;
  }
  return {
    providers: tallies.sorted(),
    complete: unfinished.length < input.limit && finished.length < input.limit,
  };
}
