/**
 * @module The inbox endpoint's backlog budget: from the figures of successive backlog reads, when
 * each provider starts and stops being refused, and the `Retry-After` its refusals carry. Pure: no
 * clock of its own and no store, so every transition can be driven from a test.
 */
import type { InboxBacklog, ProviderBacklog } from './figures';

/** The budget, resolved: what `inbox({ backpressure })` checks the figures against. */
export interface BudgetLimits {
  /** Refuse once a provider has this many unfinished deliveries; `undefined`: no depth budget. */
  readonly maxPending: number | undefined;
  /** Refuse once its oldest unfinished delivery is this old (ms); `undefined`: no age budget. */
  readonly maxPendingAgeMs: number | undefined;
  /** The fraction of each budget the backlog must fall to (or below) to be stored again. */
  readonly resumeAt: number;
  /** The bounds of the `Retry-After` seconds a refusal carries. */
  readonly retryAfterSeconds: { readonly min: number; readonly max: number };
}

/** A provider the endpoint refuses, as of the last figures. */
export interface Refused {
  readonly provider: string;
  /** Its unfinished deliveries (a lower bound when the read was cut at its limit). */
  readonly unfinished: number;
  /** How long ago its oldest unfinished delivery was received; `null` when none is. */
  readonly oldestAgeMs: number | null;
  /** What its refusals answer in `Retry-After`. */
  readonly retryAfterSeconds: number;
}

/** A provider that started or stopped being refused with the figures just applied. */
export interface BudgetChange {
  readonly state: 'started' | 'ended';
  readonly provider: string;
  readonly unfinished: number;
  readonly oldestAgeMs: number | null;
  /** The `Retry-After` seconds of its refusals; `null` when it ended. */
  readonly retryAfterSeconds: number | null;
}

/** The last figures of a refused provider and when they were read: what its drain rate is measured from. */
interface Standing extends Refused {
  readonly at: number;
}

/**
 * Per provider: refused from the read whose figures pass a budget (`unfinished >= maxPending`, or
 * the oldest at least `maxPendingAgeMs` old) until a complete read shows every budget back at or
 * below `resumeAt` of itself (hysteresis: a backlog hovering at the budget does not flap). A read
 * cut at its limit only ever starts a refusal (its counts are lower bounds), never ends one. Only
 * refused providers are kept.
 */
export class BacklogBudget {
  private readonly standing = new Map<string, Standing>();

  constructor(private readonly limits: BudgetLimits) {}

  /** The refusal standing for `provider`, or `undefined` when its deliveries are stored. */
  refused(provider: string): Refused | undefined {
    return this.standing.get(provider);
  }

  /** Every provider refused now. */
  all(): Iterable<Refused> {
    return this.standing.values();
  }

  /** Applies the figures of a read that started at `at` (ms, any monotonic clock): the changes it makes, by provider name. */
  apply(backlog: InboxBacklog, at: number): BudgetChange[] {
    const figures = new Map<string, ProviderBacklog>();
    for (const entry of backlog.providers) figures.set(entry.provider, entry);
    const names = [...new Set([...figures.keys(), ...this.standing.keys()])].sort();
    const changes: BudgetChange[] = [];
    for (const provider of names) {
      const change = this.applyOne(provider, figures.get(provider), backlog.complete, at);
      if (change) changes.push(change);
    }
    return changes;
  }

  private applyOne(
    provider: string,
    figures: ProviderBacklog | undefined,
    complete: boolean,
    at: number,
  ): BudgetChange | undefined {
    const unfinished = figures?.unfinished ?? 0;
    const oldestAgeMs = figures?.oldestAgeMs ?? null;
    const before = this.standing.get(provider);
    if (!before) {
      if (!this.over(unfinished, oldestAgeMs)) return undefined;
      // No drain rate yet: the shortest wait, so the next figures come from the provider's retry.
      const retryAfterSeconds = this.limits.retryAfterSeconds.min;
      this.standing.set(provider, { provider, unfinished, oldestAgeMs, retryAfterSeconds, at });
      return { state: 'started', provider, unfinished, oldestAgeMs, retryAfterSeconds };
    }
    if (complete && this.under(unfinished, oldestAgeMs)) {
      this.standing.delete(provider);
      return { state: 'ended', provider, unfinished, oldestAgeMs, retryAfterSeconds: null };
    }
    const retryAfterSeconds = this.retryAfter(unfinished, drainRate(before, unfinished, at));
    this.standing.set(provider, { provider, unfinished, oldestAgeMs, retryAfterSeconds, at });
    return undefined;
  }

  /** Past a budget: at `maxPending` unfinished deliveries, or the oldest at `maxPendingAgeMs`. */
  private over(unfinished: number, oldestAgeMs: number | null): boolean {
    const { maxPending, maxPendingAgeMs } = this.limits;
    if (maxPending !== undefined && unfinished >= maxPending) return true;
    return maxPendingAgeMs !== undefined && oldestAgeMs !== null && oldestAgeMs >= maxPendingAgeMs;
  }

  /** Back at or below `resumeAt` of every budget. */
  private under(unfinished: number, oldestAgeMs: number | null): boolean {
    const { maxPending, maxPendingAgeMs, resumeAt } = this.limits;
    if (maxPending !== undefined && unfinished > this.resumeDepth()) return false;
    return (
      maxPendingAgeMs === undefined ||
      oldestAgeMs === null ||
      oldestAgeMs <= maxPendingAgeMs * resumeAt
    );
  }

  /** The depth the backlog must fall to: `resumeAt` of `maxPending`, whole (0 without a depth budget). */
  private resumeDepth(): number {
    const { maxPending, resumeAt } = this.limits;
    return maxPending === undefined ? 0 : Math.floor(maxPending * resumeAt);
  }

  /**
   * The seconds until the backlog is expected back at its resume depth at `rate` deliveries a
   * second, within the bounds: the shortest while the rate is unknown, the longest while nothing
   * drains (the worker stopped or is as slow as the arrivals).
   */
  private retryAfter(unfinished: number, rate: number | undefined): number {
    const { min, max } = this.limits.retryAfterSeconds;
    if (rate === undefined) return min;
    if (rate <= 0) return max;
    const seconds = Math.ceil(Math.max(0, unfinished - this.resumeDepth()) / rate);
    return Math.min(max, Math.max(min, seconds));
  }
}

/** Deliveries finished per second between the last figures and these; `undefined` when no time passed. */
function drainRate(before: Standing, unfinished: number, at: number): number | undefined {
  const seconds = (at - before.at) / 1000;
  if (!(seconds > 0)) return undefined;
  return (before.unfinished - unfinished) / seconds;
}
