/**
 * @module The model-based property: fast-check commands that drive the real `IdempotencyGuard`
 * over a real store and the {@link ReceiptModel} side by side, comparing them after every step.
 * Its vocabulary: property-base.ts; the delivery: property-deliver.ts; the other commands:
 * property-steps.ts.
 */
import fc from 'fast-check';
import { IdempotencyGuard, type Store } from '@webhook-idempotency/core';
import { ReceiptModel } from './model';
import type { VirtualClock } from './property-clock';

import {
  KEYS,
  FINGERPRINTS,
  STALE_AFTER_SECONDS,
  STALE_MS,
  CLOCK_JUMPS_MS,
  START_MS,
  type Ending,
  type Behaviour,
  type PropertyModel,
  type PropertyReal,
} from './property-base';
import { DeliverCommand } from './property-deliver';
import { SettleCommand, AdvanceClockCommand, PurgeCommand, BurstCommand } from './property-steps';
export {
  type Behaviour,
  CLOCK_JUMPS_MS,
  type Ending,
  FINGERPRINTS,
  HttpError,
  KEYS,
  type PropertyModel,
  type PropertyReal,
  STALE_AFTER_SECONDS,
  START_MS,
} from './property-base';
export { DeliverCommand } from './property-deliver';
export { AdvanceClockCommand, BurstCommand, PurgeCommand, SettleCommand } from './property-steps';

/** Every command, weighted towards deliveries. */
export function commandArbitraries(): fc.Arbitrary<fc.AsyncCommand<PropertyModel, PropertyReal>>[] {
  // Weighted towards one key and one body, so that deliveries collide (takeovers, late owners) often.
  const key = fc.oneof(
    ...KEYS.map((k, i) => ({ arbitrary: fc.constant(k), weight: i === 0 ? 4 : 1 })),
  );
  const fingerprint = fc.oneof(
    ...FINGERPRINTS.map((f, i) => ({ arbitrary: fc.constant(f), weight: i === 0 ? 3 : 1 })),
  );
  const ending = fc.constantFrom<Ending>('return', 'throw', 'http-error');
  const deliver = fc
    .tuple(
      key,
      fingerprint,
      fc.boolean(),
      fc.constantFrom<Behaviour>('return', 'return', 'throw', 'http-error', 'hold', 'hold', 'hold'),
    )
    .map(([k, f, v, b]) => new DeliverCommand(k, f, v, b));
  // Index 0 (the oldest held run) half the time: the late owner whose claim was taken over.
  const settle = fc
    .tuple(fc.oneof(fc.constant(0), fc.nat(7)), ending)
    .map(([i, e]) => new SettleCommand(i, e));
  const advance = fc.constantFrom(...CLOCK_JUMPS_MS).map((ms) => new AdvanceClockCommand(ms));
  return [
    deliver,
    deliver,
    deliver,
    settle,
    advance,
    advance,
    fc
      .tuple(fc.constantFrom(0, 1, 30), fc.constantFrom(undefined, 'stripe', 'github'))
      .map(([d, p]) => new PurgeCommand(d, p)),
    fc
      .tuple(key, fingerprint, fc.boolean(), fc.integer({ min: 2, max: 4 }))
      .map(([k, f, v, n]) => new BurstCommand(k, f, v, n)),
  ];
}

/** What the property runs against. */
export interface PropertyTarget {
  readonly name: string;
  /**
   * A store with no receipts whose "now" is `clock.now`: a `'caller'`-clock store gets it from the
   * guard; a `'store'`-clock store must be wired to it by the target. Called once per interleaving.
   */
  store(clock: VirtualClock): Promise<Store<unknown>>;
}

/** What the interleavings covered. */
export interface InterleavingCounter {
  /** Interleavings run (shrinking included). */
  runs: number;
  /** Commands run. */
  commands: number;
  /** Occurrences of each lifecycle path. */
  readonly paths: Record<string, number>;
}

/** Options of {@link interleavingProperty}. */
export interface InterleavingOptions {
  /** Longest command sequence of one interleaving. */
  readonly maxCommands: number;
  /** Counts the interleavings actually run (shrinking included). */
  readonly counter?: InterleavingCounter;
}

/**
 * The property: for any sequence of commands, the real guard over `target`'s store answers every
 * delivery, settles every late handler and purges exactly as the {@link ReceiptModel} says, and
 * the stored receipts equal the model's after every step.
 */
export function interleavingProperty(target: PropertyTarget, options: InterleavingOptions) {
  return fc.asyncProperty(
    fc.commands(commandArbitraries(), { maxCommands: options.maxCommands, size: 'max' }),
    (commands) => runCommands(target, countCommands(commands, options.counter), options.counter),
  );
}

/**
 * Runs one interleaving: a fresh store from `target`, the guard on a virtual clock, and `commands`
 * against the model. Also how a fixed scenario (a shrunk counterexample) is replayed by name.
 * @throws the first disagreement between the guard and the model.
 */
export async function runCommands(
  target: PropertyTarget,
  commands: Iterable<fc.AsyncCommand<PropertyModel, PropertyReal>>,
  counter?: InterleavingCounter,
): Promise<void> {
  const clock: VirtualClock = { now: START_MS };
  const store = await target.store(clock);
  const real: PropertyReal = {
    guard: new IdempotencyGuard(store, {
      staleAfterSeconds: STALE_AFTER_SECONDS,
      clock: () => clock.now,
    }),
    store,
    clock,
    held: [],
    running: [],
    violations: [],
    runs: 0,
    tally: (path) => {
      if (counter) counter.paths[path] = (counter.paths[path] ?? 0) + 1;
    },
  };
  const model: PropertyModel = {
    ref: new ReceiptModel({ now: START_MS, staleAfterMs: STALE_MS }),
    held: [],
  };
  if (counter) counter.runs++;
  try {
    await fc.asyncModelRun(() => ({ model, real }), commands);
  } finally {
    // Let every held handler end, so none writes into the next interleaving's store.
    for (const held of real.held.splice(0)) {
      held.release('throw');
      await held.outcome;
    }
  }
}

function* countCommands<C>(
  commands: Iterable<C>,
  counter: { commands: number } | undefined,
): Iterable<C> {
  for (const command of commands) {
    if (counter) counter.commands++;
    yield command;
  }
}
