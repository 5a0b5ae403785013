/**
 * @module The inbox endpoint's backpressure: `inbox({ backpressure })` checked once, and the gate
 * that refuses a provider's new deliveries while its backlog is over budget. The gate answers from
 * figures it keeps: one backlog read at a time refreshes them, started by a request that finds them
 * older than `refreshMs`. A request of a stored provider never waits for that read (but its
 * first); one of a refused provider does, so it is never refused on old figures.
 */
import { ConfigError, ErrorCode, IdempotencyError } from '../errors';
import { errorAnswer } from '../http/answers';
import type { HttpResponseRecord, ProviderPreset } from '../http/types';
import type { RequestKey } from '../request-key';
import { BACKLOG_LIMITS } from './backlog';
import {
  BacklogBudget,
  type BudgetChange,
  type BudgetLimits,
  type Refused,
} from './backpressure-budget';
import { numberOption } from './run';
import type { InboxStore } from './inbox-store';
import type { InboxEvent } from './types';

/**
 * `inbox({ backpressure })`: refuse a provider's new deliveries, unstored, with 503 (or 429) and
 * `Retry-After`, while its unfinished deliveries pass a depth or an age budget; store them again
 * once the worker has brought the backlog back to `resumeAt` of every budget. A delivery already
 * stored is still answered as a duplicate. Off unless given; at least one budget is required.
 */
export interface InboxBackpressureOptions {
  /** Refuse once a provider has this many unfinished (pending or processing) deliveries. A whole number from 1 to 100 000. */
  maxPending?: number;
  /**
   * Refuse once a provider's oldest unfinished delivery was received this many milliseconds ago.
   * A delivery waiting for a retry's backoff counts: keep it above your retry schedule's span.
   */
  maxPendingAgeMs?: number;
  /**
   * How old the figures may be before a request starts a new backlog read, in milliseconds; one
   * read runs at a time, and requests never wait for it (but the first). `0`: each request that
   * finds no read in flight starts one. Defaults to 1000.
   */
  refreshMs?: number;
  /** The fraction of each budget the backlog must fall to, or below, to be stored again: more than 0, at most 1. Defaults to 0.8. */
  resumeAt?: number;
  /**
   * The bounds of the `Retry-After` seconds, whole numbers: the expected time to drain to
   * `resumeAt` at the rate the backlog fell since the last read, the shortest while that rate is
   * unknown, the longest while nothing drains. Defaults to the refresh interval (at least 1) and 60.
   */
  retryAfterSeconds?: { min?: number; max?: number };
  /** The refusal's status. Defaults to the preset's `backpressureStatus`, else 503. */
  status?: 429 | 503;
}

/** {@link InboxBackpressureOptions}, checked, with their defaults. */
export interface ResolvedBackpressure extends BudgetLimits {
  readonly refreshMs: number;
  readonly status: 429 | 503;
  /** The rows one backlog read takes: at least the contract's default, twice the depth budget. */
  readonly readLimit: number;
}

const KNOWN = new Set([
  'maxPending',
  'maxPendingAgeMs',
  'refreshMs',
  'resumeAt',
  'retryAfterSeconds',
  'status',
]);
const DEFAULT_REFRESH_MS = 1000;
const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;
const DAY_SECONDS = 86_400;

function statusOption(option: string, value: unknown): 429 | 503 {
  if (value !== 429 && value !== 503)
    throw new ConfigError(option, `must be 429 or 503, got ${String(value)}`);
  return value;
}

function retryAfterBounds(value: unknown, refreshMs: number): { min: number; max: number } {
  if (value !== undefined && (typeof value !== 'object' || value === null))
    throw new ConfigError('backpressure.retryAfterSeconds', 'must be an object { min, max }');
  const { min, max } = (value ?? {}) as { min?: unknown; max?: unknown };
  const low = numberOption(
    'backpressure.retryAfterSeconds.min',
    min ?? Math.max(1, Math.ceil(refreshMs / 1000)),
    1,
    true,
    DAY_SECONDS,
  );
  const high = numberOption(
    'backpressure.retryAfterSeconds.max',
    max ?? Math.max(low, DEFAULT_MAX_RETRY_AFTER_SECONDS),
    low,
    true,
    DAY_SECONDS,
  );
  return { min: low, max: high };
}

/**
 * `inbox({ backpressure })` checked once: `undefined` when it is off.
 * @throws {ConfigError} naming the first invalid option (`backpressure.maxPending`, …), or
 * `backpressure` when it sets no budget.
 */
export function resolveBackpressure(
  value: unknown,
  preset: ProviderPreset | undefined,
): ResolvedBackpressure | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null)
    throw new ConfigError('backpressure', 'must be an object with maxPending or maxPendingAgeMs');
  const unknown = Object.keys(value).find((name) => !KNOWN.has(name));
  if (unknown !== undefined)
    throw new ConfigError(`backpressure.${unknown}`, 'is not an option of backpressure');
  const options = value as InboxBackpressureOptions;
  const maxPending =
    options.maxPending === undefined
      ? undefined
      : numberOption('backpressure.maxPending', options.maxPending, 1, true, BACKLOG_LIMITS.max);
  const maxPendingAgeMs =
    options.maxPendingAgeMs === undefined
      ? undefined
      : numberOption('backpressure.maxPendingAgeMs', options.maxPendingAgeMs, 1);
  if (maxPending === undefined && maxPendingAgeMs === undefined)
    throw new ConfigError(
      'backpressure',
      'needs maxPending, maxPendingAgeMs or both: without a budget it would never refuse',
    );
  const refreshMs = numberOption(
    'backpressure.refreshMs',
    options.refreshMs ?? DEFAULT_REFRESH_MS,
    0,
  );
  const resumeAt = numberOption('backpressure.resumeAt', options.resumeAt ?? 0.8, 0, false, 1);
  if (resumeAt === 0) throw new ConfigError('backpressure.resumeAt', 'must be more than 0, got 0');
  const status =
    options.status !== undefined
      ? statusOption('backpressure.status', options.status)
      : preset?.backpressureStatus !== undefined
        ? statusOption('preset.backpressureStatus', preset.backpressureStatus)
        : 503;
  const readLimit = Math.min(
    BACKLOG_LIMITS.max,
    Math.max(BACKLOG_LIMITS.default, 2 * (maxPending ?? 0)),
  );
  const retryAfterSeconds = retryAfterBounds(options.retryAfterSeconds, refreshMs);
  return { maxPending, maxPendingAgeMs, resumeAt, retryAfterSeconds, refreshMs, status, readLimit };
}

/** What the gate decided for a delivery while its provider is refused. */
export type GateAnswer =
  /** Already stored: answer it as a duplicate, as always. */
  | { readonly outcome: 'duplicate' }
  /** Not stored: send this refusal, store nothing. */
  | { readonly outcome: 'backpressure'; readonly response: HttpResponseRecord };

/** The refusal a refused provider's deliveries get: built once per read, never per request. */
function refusalOf(standing: Refused, status: 429 | 503): HttpResponseRecord {
  const error = new IdempotencyError(
    ErrorCode.BACKPRESSURE,
    `The inbox is behind on provider "${standing.provider}"; nothing was stored: retry after ${standing.retryAfterSeconds} s`,
  );
  return errorAnswer(status, error, { 'retry-after': String(standing.retryAfterSeconds) });
}

/**
 * Refuses a provider's new deliveries while its backlog is over budget. Owns the figures of the
 * last backlog read and the refusal answers built from them; {@link BackpressureGate.check} is all
 * the endpoint calls.
 */
export class BackpressureGate {
  private readonly budget: BacklogBudget;
  private readonly refusals = new Map<string, HttpResponseRecord>();
  private reading: Promise<void> | undefined;
  private again = false;
  private startedAt = Number.NEGATIVE_INFINITY;
  /** The providers of the requests seen: the only ones the figures are applied for. */
  private readonly providers = new Set<string>();

  constructor(
    private readonly inbox: InboxStore,
    private readonly options: ResolvedBackpressure,
    private readonly emit: (event: InboxEvent) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.budget = new BacklogBudget(options);
  }

  /**
   * `undefined` to store the delivery, else what to answer instead. Reads nothing while the
   * provider is stored (but its first request, which waits for a backlog read); while it is
   * refused, a request that finds the figures stale waits for the next read, and one read of the
   * delivery's key tells a duplicate (answered as always) from a new delivery (refused). Never
   * rejects: a failed read is a `store-error` event, and a failed key read refuses.
   */
  async check(key: RequestKey): Promise<GateAnswer | undefined> {
    const stale = this.now() - this.startedAt >= this.options.refreshMs;
    const first = !this.providers.has(key.provider);
    if (first) this.providers.add(key.provider);
    // A provider's first request and a refused provider's request wait for the read they need
    // (so one that arrives after the worker caught up is stored, never refused on old figures);
    // any other never waits.
    if (first || (stale && this.refusals.has(key.provider))) await this.fresh(stale || first);
    else if (stale) void this.refresh();
    const response = this.refusals.get(key.provider);
    if (!response) return undefined;
    try {
      if (await this.inbox.find(key.provider, key.externalId)) return { outcome: 'duplicate' };
    } catch (error) {
      this.emit({ type: 'store-error', operation: 'find', error });
    }
    return { outcome: 'backpressure', response };
  }

  /** The read in flight, or a new one when the figures are stale and none is. */
  private fresh(stale: boolean): Promise<void> {
    if (this.reading) return this.reading;
    return stale ? this.refresh() : Promise.resolve();
  }

  /**
   * Starts a backlog read, or, while one runs, asks for another right after it (so a request that
   * found the figures stale always gets a read that began after it arrived). Resolves when the
   * read in flight ends; never rejects.
   */
  refresh(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    const at = this.now();
    this.startedAt = at;
    this.reading = this.read(at).finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.reading;
  }

  private async read(at: number): Promise<void> {
    const { maxPendingAgeMs, readLimit } = this.options;
    let changes: BudgetChange[];
    try {
      const backlog = await this.inbox.backlog({
        stuckAfterMs: maxPendingAgeMs ?? 60_000,
        limit: readLimit,
      });
      // Only the providers this endpoint answers: another endpoint's are its own to refuse.
      const providers = backlog.providers.filter((p) => this.providers.has(p.provider));
      changes = this.budget.apply({ ...backlog, providers }, at);
    } catch (error) {
      this.emit({ type: 'store-error', operation: 'backlog', error });
      return;
    }
    this.refusals.clear();
    for (const standing of this.budget.all())
      this.refusals.set(standing.provider, refusalOf(standing, this.options.status));
    for (const change of changes) this.emit({ type: 'backpressure', ...change });
  }
}
