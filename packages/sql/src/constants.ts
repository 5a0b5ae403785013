/** @module Named defaults and limits of the SQL store. */

/** Table the store uses when no `table` option is given. */
export const DEFAULT_TABLE = 'webhook_receipts';
/** Longest accepted table name: leaves room for the index names derived from it (63-character identifiers in PostgreSQL). */
export const MAX_TABLE_NAME_LENGTH = 48;
/** How long a statement waits for a connection from a `pg` or `mysql2` pool before it fails. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
/** Table `SqlInbox` and `InboxSchema` use when no `table` option is given. */
export const DEFAULT_INBOX_TABLE = 'webhook_inbox';
