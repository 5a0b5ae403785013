/** @module Types of the inbox-store conformance suite. */
import type { InboxStore } from '../../inbox/inbox-store';

/**
 * A clock the store under test reads and the suite moves: an `InMemoryInbox` built with
 * `{ now: clock.now }`. A store on a database's clock has none (the suite then sleeps).
 */
export interface InboxTestClock {
  /** The store's time now, in milliseconds since the epoch. */
  now(): number;
  /** Moves the store's time forward by `ms`. */
  advance(ms: number): void | Promise<void>;
}

/** An inbox store under test, fresh and empty, plus what it can do. */
export interface InboxConformanceHarness {
  readonly inbox: InboxStore;
  /**
   * The store's clock, when the test controls it: leases then run out by moving it, with no
   * sleeping. Without it the suite lets real time pass (leases of 50 to 200 ms and sleeps of
   * twice that) and compares due times with `Date.now()`.
   */
  readonly clock?: InboxTestClock;
  /** Releases what `makeInbox` opened. Runs after every case. */
  close?(): Promise<void>;
}

/** Options of {@link runInboxStoreConformance}. */
export interface InboxConformanceOptions {
  /** Shown in the test names. */
  readonly name: string;
  /**
   * Returns an **empty** inbox store for each case (cases count and list what is stored, so
   * leftovers would fail them).
   */
  readonly makeInbox: () => InboxConformanceHarness | Promise<InboxConformanceHarness>;
}

/** What a case receives. */
export interface InboxCaseContext {
  /** The store under test, empty when the case starts. */
  readonly inbox: InboxStore;
  /** The store's time now, in milliseconds: what its due times and leases are compared with. */
  now(): number;
  /** Lets `ms` pass for the store: moves its clock, or sleeps when it has none of the test's. */
  wait(ms: number): Promise<void>;
}

/** One check of the inbox-store contract. */
export interface InboxConformanceCase {
  readonly group:
    | 'enqueue'
    | 'lease'
    | 'lease end'
    | 'lease count'
    | 'redeliver'
    | 'ordering'
    | 'relay'
    | 'list'
    | 'purge'
    | 'backlog'
    | 'backpressure';
  readonly name: string;
  run(context: InboxCaseContext): Promise<void>;
}
