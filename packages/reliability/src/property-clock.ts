/** @module The property test's virtual clock, and how a SQLite database is made to read it. */
import type BetterSqlite3 from 'better-sqlite3';

/** A clock the test moves by hand: the guard's `clock` and, for SQLite, the database's "now". */
export interface VirtualClock {
  /** Milliseconds since the epoch. */
  now: number;
}

/** Julian day number of the Unix epoch (1970-01-01T00:00:00Z). */
const UNIX_EPOCH_JULIAN_DAY = 2440587.5;
const MS_PER_DAY = 86_400_000;

/**
 * Makes `db` take "now" from `current()` instead of the system clock. SqlStore reads the database
 * clock only through `julianday('now')` (packages/sql/src/dialects.ts); this registers an
 * application-defined `julianday` on this one connection (SQLite lets one replace a built-in
 * function per connection), answering `'now'` from the virtual clock. Everything else, the driver,
 * the store's SQL, the file and its locks, stays real. Any other argument is refused loudly,
 * so a future statement that needs the real function fails instead of silently using this one.
 *
 * Register it before the first statement on `db` is prepared.
 */
export function driveSqliteClock(db: BetterSqlite3.Database, current: () => VirtualClock): void {
  db.function('julianday', { deterministic: false, varargs: false }, (value: unknown) => {
    if (value !== 'now')
      throw new Error(
        `driveSqliteClock: julianday(${String(value)}) is not supported, only julianday('now')`,
      );
    return current().now / MS_PER_DAY + UNIX_EPOCH_JULIAN_DAY;
  });
}
