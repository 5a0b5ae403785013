/** @module Named defaults of the connections. */

/** How long a statement waits for a connection from a `pg` or `mysql2` pool before it fails. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
