/**
 * @module Where a store's ignored-event tally lives: one per store object in this process, shared
 * by every route set that guards with it, created on the first ignored event. Nothing is global:
 * the tally belongs to the store it counts for and goes with it.
 */
import type { Store } from '../store-contract';
import { IgnoredTally } from './tally';

export {
  boundedType,
  IGNORED_FLUSH_MS,
  IgnoredTally,
  MAX_IGNORED_TYPE_LENGTH,
  MAX_IGNORED_TYPES,
  OTHER_TYPE,
  type TallyOptions,
  UNNAMED_TYPE,
} from './tally';

const tallies = new WeakMap<object, IgnoredTally>();
const observers = new WeakMap<object, Set<(error: unknown) => void>>();

/**
 * The tally of `store`, or `undefined` for a store that keeps no ignored counts
 * (`capabilities.ignoredCounts` not `true`). `onError` hears of its failed writes.
 */
export function ignoredTallyOf<Tx>(
  store: Store<Tx>,
  onError?: (error: unknown) => void,
): IgnoredTally | undefined {
  if (store.capabilities.ignoredCounts !== true || !store.addIgnored) return undefined;
  const listeners = observers.get(store) ?? new Set<(error: unknown) => void>();
  observers.set(store, listeners);
  if (onError) listeners.add(onError);
  let tally = tallies.get(store);
  if (!tally) {
    const heard = listeners;
    tally = new IgnoredTally(
      { addIgnored: (counts, at) => store.addIgnored!(counts, at) },
      {
        onError(error) {
          for (const listener of heard) listener(error);
        },
      },
    );
    tallies.set(store, tally);
  }
  return tally;
}

/**
 * Writes the ignored events `store` counted in this process and has not written yet, now: call it
 * on shutdown (after the server stopped taking requests) so that the last few seconds' counts are
 * kept. Without it they are written within a few seconds, and a process that exits before loses
 * them (the counts of one interval at most). Resolves at once for a store that keeps no counts.
 *
 * @example
 * process.once('SIGTERM', () => server.close(() => void flushIgnored(store).then(() => process.exit(0))));
 */
export function flushIgnored<Tx>(store: Store<Tx>): Promise<void> {
  return tallies.get(store)?.flush() ?? Promise.resolve();
}
