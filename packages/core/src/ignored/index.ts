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
  MAX_IGNORED_HOURS,
  MAX_IGNORED_TYPES,
  OTHER_TYPE,
  type TallyOptions,
  UNNAMED_TYPE,
} from './tally';

const tallies = new WeakMap<object, IgnoredTally>();
/** Who hears of a store's failed count writes, held weakly: a listener its owner dropped goes too. */
const observers = new WeakMap<object, Set<WeakRef<(error: unknown) => void>>>();

/** Calls every listener still held by its owner, and forgets the others. */
function tell(listeners: Set<WeakRef<(error: unknown) => void>>, error: unknown): void {
  for (const ref of listeners) {
    const listener = ref.deref();
    if (listener) listener(error);
    else listeners.delete(ref);
  }
}

/**
 * The tally of `store`, or `undefined` for a store that keeps no ignored counts
 * (`capabilities.ignoredCounts` not `true`). `onError` hears of its failed writes for as long as
 * the caller holds it: the tally keeps it weakly, so that an app building many engines on one
 * long-lived store does not collect a listener per engine.
 */
export function ignoredTallyOf<Tx>(
  store: Store<Tx>,
  onError?: (error: unknown) => void,
): IgnoredTally | undefined {
  if (store.capabilities.ignoredCounts !== true || !store.addIgnored) return undefined;
  const listeners = observers.get(store) ?? new Set<WeakRef<(error: unknown) => void>>();
  observers.set(store, listeners);
  for (const ref of listeners) if (!ref.deref()) listeners.delete(ref);
  if (onError) listeners.add(new WeakRef(onError));
  let tally = tallies.get(store);
  if (!tally) {
    tally = new IgnoredTally(
      { addIgnored: (counts, at) => store.addIgnored!(counts, at) },
      { onError: (error) => tell(listeners, error) },
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
