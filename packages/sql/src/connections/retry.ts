/**
 * @module Runs the store's single statements again when the database chose them as a deadlock
 * victim (or failed them on a serialization conflict), a few times with a short jittered backoff.
 * Only a statement that runs on its own is run again: one inside a transaction (the handler's) is
 * never replayed, since the database rolled back the whole transaction, not just the statement.
 */
import { type DialectSpec, isDeadlock } from '../dialects';
import type { Executor } from './executor';

/** How many times a deadlocked statement runs again before its error is passed on. */
export const DEADLOCK_RETRIES = 3;
/** The first backoff before a statement runs again, in milliseconds; it doubles each time, jittered ±50 %. */
const DEADLOCK_BACKOFF_MS = 10;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `executor` with its own statements (those run without a transaction) retried on a deadlock of
 * `dialect`. A deadlock victim's statement was rolled back entirely (an autocommit statement is
 * its own transaction), so running it again is the same as running it late.
 */
export function retryDeadlocks(executor: Executor, dialect: DialectSpec): Executor {
  if (dialect.deadlockCodes.size === 0) return executor;
  return {
    ...executor,
    async query(sql, params, transaction) {
      if (transaction !== undefined) return executor.query(sql, params, transaction);
      for (let retry = 0; ; retry++) {
        try {
          return await executor.query(sql, params);
        } catch (error) {
          if (retry >= DEADLOCK_RETRIES || !isDeadlock(dialect, error)) throw error;
          await pause(DEADLOCK_BACKOFF_MS * 2 ** retry * (0.5 + Math.random()));
        }
      }
    },
  };
}
