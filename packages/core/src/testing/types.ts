/** @module Types of the store conformance suite. */
import type { Store } from '../types';

/** A store under test, fresh and empty, plus how to move its clock. */
export interface ConformanceHarness<Tx = never> {
  readonly store: Store<Tx>;
  /**
   * Makes `ms` pass for the store. Required for stores with a `'store'` clock (a database's),
   * which cannot be faked: shift every stored timestamp back by `ms` instead. Stores with a
   * `'caller'` clock need nothing: the suite moves the `now` it passes.
   */
  advance?(ms: number): Promise<void>;
  /** Releases what `makeStore` opened. Runs after every case. */
  close?(): Promise<void>;
}

/** Options of {@link runStoreConformance}. */
export interface ConformanceOptions<Tx = never> {
  /** Shown in the test names. */
  readonly name: string;
  /** Returns an **empty** store for each case (purge counts rows, so leftovers would fail it). */
  readonly makeStore: () => ConformanceHarness<Tx> | Promise<ConformanceHarness<Tx>>;
  /** Parallel callers in the race cases. Defaults to 100. */
  readonly concurrency?: number;
}

/** What a case receives. */
export interface CaseContext<Tx = never> {
  readonly store: Store<Tx>;
  /** The suite's clock, passed as `now` to every call. */
  now(): number;
  /** Moves time forward by `ms`, for both kinds of store clock. */
  advance(ms: number): Promise<void>;
  /** A key no other case uses. */
  key(label?: string, provider?: string): { provider: string; externalId: string };
  /** Parallel callers for race cases. */
  readonly concurrency: number;
}

/** One check of the contract. */
export interface ConformanceCase {
  readonly group:
    | 'claim'
    | 'complete'
    | 'fail'
    | 'stale'
    | 'purge'
    | 'group'
    | 'concurrency'
    | 'transaction'
    | 'ignored';
  readonly name: string;
  run(context: CaseContext<unknown>): Promise<void>;
}
