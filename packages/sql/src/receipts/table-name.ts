/** @module Validates the table name option: an identifier, never a piece of SQL. */
import { ConfigError } from '@webhook-idempotency/core';

/** Table the store uses when no `table` option is given. */
export const DEFAULT_TABLE = 'webhook_receipts';
/** Longest accepted table name: leaves room for the index names derived from it (63-character identifiers in PostgreSQL). */
export const MAX_TABLE_NAME_LENGTH = 48;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Returns the table name, or the default for `undefined`.
 *
 * @throws {ConfigError} naming the `table` option when it is not a plain identifier of at most 48 characters.
 */
export function resolveTable(table: unknown): string {
  if (table === undefined) return DEFAULT_TABLE;
  if (
    typeof table !== 'string' ||
    !IDENTIFIER.test(table) ||
    table.length > MAX_TABLE_NAME_LENGTH
  ) {
    throw new ConfigError(
      'table',
      `must be a plain identifier (letters, digits and _, not starting with a digit, at most ${MAX_TABLE_NAME_LENGTH} characters), got ${JSON.stringify(table)}`,
    );
  }
  return table;
}
