/**
 * @module The ignored-event tally: a route set's events no route takes, counted in memory per
 * provider and type and written to the store in one call every few seconds, so that an ignored
 * event costs a map increment and writes nothing on its own. A process that dies loses the counts
 * of its last interval at most; a sender's invented types are bounded in number and in length.
 */
import { HOUR, SECOND } from '../constants';
import type { IgnoredCount, Store } from '../store-contract';

/** How long counts wait in memory before they are written: at most one write per interval. */
export const IGNORED_FLUSH_MS = 5 * SECOND;
/** The longest wait between writes while they keep failing (each failure doubles the wait up to it). */
export const MAX_IGNORED_BACKOFF_MS = 300 * SECOND;
/** Distinct provider and type entries an hour keeps; later new types of that hour count as {@link OTHER_TYPE}. */
export const MAX_IGNORED_TYPES = 100;
/**
 * Hours a tally keeps apart while its writes fail (the store down): counts of older hours are
 * added to the oldest of them, so that a long outage neither grows the tally nor its next write.
 */
export const MAX_IGNORED_HOURS = 3;
/** Longest type kept, in characters (code points); a longer one is cut there. */
export const MAX_IGNORED_TYPE_LENGTH = 100;
/** Where the types past {@link MAX_IGNORED_TYPES} of an interval are counted. */
export const OTHER_TYPE = '(other)';
/** The type of an event its preset could not name. */
export const UNNAMED_TYPE = '(unnamed)';

// Lone surrogates and control characters: text no SQL column holds alike (PostgreSQL refuses NUL).
const UNSTORABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are matched on purpose, to be replaced before counting.
  /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A sender's event type as it is counted: at most {@link MAX_IGNORED_TYPE_LENGTH} characters of storable text. */
export function boundedType(type: string | undefined): string {
  if (type === undefined || type === '') return UNNAMED_TYPE;
  // The usual name: short and plain, kept as it is (no copy on the hot path).
  UNSTORABLE.lastIndex = 0;
  if (type.length <= MAX_IGNORED_TYPE_LENGTH && !UNSTORABLE.test(type)) return type;
  const cut =
    type.length > MAX_IGNORED_TYPE_LENGTH * 2 ? type.slice(0, MAX_IGNORED_TYPE_LENGTH * 2) : type;
  const points = Array.from(cut.replace(UNSTORABLE, '\ufffd'));
  return points.length > MAX_IGNORED_TYPE_LENGTH
    ? points.slice(0, MAX_IGNORED_TYPE_LENGTH).join('')
    : points.join('');
}

/** What a tally needs besides its store. */
export interface TallyOptions {
  /** Milliseconds between writes. Defaults to {@link IGNORED_FLUSH_MS}. */
  readonly flushMs?: number;
  /** Distinct types per interval. Defaults to {@link MAX_IGNORED_TYPES}. */
  readonly maxTypes?: number;
  /** The clock that dates the counts' hour. Defaults to `Date.now`. */
  readonly clock?: () => number;
  /** A write that failed (its counts are kept for the next one). */
  onError?(error: unknown): void;
}

type Writer = Required<Pick<Store, 'addIgnored'>>;

/** The ignored events of one store's writers in this process, since its last write. */
export class IgnoredTally {
  /** By hour, provider and type: each count keeps the hour of its events, written or kept. */
  private counts = new Map<
    string,
    { provider: string; type: string; hour: number; count: number }
  >();
  /** How many entries each hour holds: the cap of distinct types is per hour. */
  private perHour = new Map<number, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  /** Writes failed in a row: the next waits longer (a store down, or a table not created yet). */
  private failures = 0;
  private readonly flushMs: number;
  private readonly maxTypes: number;
  private readonly clock: () => number;

  constructor(
    private readonly store: Writer,
    private readonly options: TallyOptions = {},
  ) {
    this.flushMs = options.flushMs ?? IGNORED_FLUSH_MS;
    this.maxTypes = options.maxTypes ?? MAX_IGNORED_TYPES;
    this.clock = options.clock ?? Date.now;
  }

  /** Counts one ignored event in the hour it happened; the first of an interval schedules its write. */
  count(provider: string, type: string | undefined): void {
    this.add(Math.floor(this.clock() / HOUR) * HOUR, provider, boundedType(type), 1);
  }

  /** Adds `count` to a provider's (bounded) type in `hour`, or to its {@link OTHER_TYPE} past the interval's cap. */
  private add(hour: number, provider: string, type: string, count: number): void {
    if (this.counts.size === 0) this.schedule();
    let entry = this.counts.get(`${hour}\u0000${provider}\u0000${type}`);
    if (!entry && (this.perHour.get(hour) ?? 0) >= this.maxTypes) {
      type = OTHER_TYPE;
      entry = this.counts.get(`${hour}\u0000${provider}\u0000${type}`);
    }
    if (entry) entry.count += count;
    else {
      this.counts.set(`${hour}\u0000${provider}\u0000${type}`, { provider, type, hour, count });
      this.perHour.set(hour, (this.perHour.get(hour) ?? 0) + 1);
    }
  }

  /**
   * Writes what was counted since the last write, now; resolves when it is written (or failed),
   * and never before a write another caller started meanwhile has ended.
   */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.counts.size === 0) return;
    const { counts } = this;
    this.counts = new Map();
    this.perHour = new Map();
    const entries: IgnoredCount[] = [...counts.values()].sort((a, b) =>
      a.hour !== b.hour ? a.hour - b.hour : a.provider + a.type < b.provider + b.type ? -1 : 1,
    );
    const writing = this.write(entries).finally(() => {
      if (this.writing === writing) this.writing = undefined;
    });
    this.writing = writing;
    await writing;
  }

  private async write(entries: readonly IgnoredCount[]): Promise<void> {
    try {
      await this.store.addIgnored(entries, { now: this.clock() });
      this.failures = 0;
    } catch (error) {
      this.failures++;
      // Kept for the next write, each in its own hour among the last MAX_IGNORED_HOURS (bounded like
      // any): counting must never fail a delivery, and a store that is down loses no count.
      const hours = [...new Set([...entries.map((entry) => entry.hour), ...this.perHour.keys()])];
      hours.sort((a, b) => b - a);
      const oldestKept = hours[Math.min(hours.length, MAX_IGNORED_HOURS) - 1]!;
      for (const { hour, provider, type, count } of entries)
        this.add(Math.max(hour, oldestKept), provider, type, count);
      try {
        this.options.onError?.(error);
      } catch {
        // An observer's error changes nothing.
      }
    }
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.min(this.flushMs * 2 ** Math.min(this.failures, 16), MAX_IGNORED_BACKOFF_MS);
    this.timer = setTimeout(() => void this.flush(), Math.max(wait, this.flushMs));
    // Never keeps a process alive: a process that exits loses this interval's counts at most.
    this.timer.unref?.();
  }
}
