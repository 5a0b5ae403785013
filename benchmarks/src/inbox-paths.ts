/** @module The inbox section's vocabulary, shared by its runner (inbox.bench.ts) and its server (inbox-server.ts). */

/** What the benchmark route does with a delivery. */
export type InboxServerMode = 'inbox' | 'guard' | 'guard-slow';

/** The awaited latency of `guard-slow`'s handler: a slow downstream call. */
export const SLOW_HANDLER_MS = 50;

/** The business table both paths write one row to per event. */
export const EFFECTS_TABLE = 'bench_effects';

/** The server's answer to `drain`: how long the worker took to process what the endpoint stored. */
export interface DrainReport {
  readonly deliveries: number;
  readonly seconds: number;
  readonly cpuUs: number;
  /** False when the deadline passed before the backlog was empty. */
  readonly emptied: boolean;
}

/** A build's own tables, per dialect: what `inbox-server.js ddl` prints (its packages' DDL). */
export type Ddl = Readonly<Record<'postgres' | 'mysql' | 'sqlite', readonly string[]>>;
