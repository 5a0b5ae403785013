/** @module What `SqlInbox` checks as it is built: its claim's options, and the receipts store it is given. */
import { ConfigError, type Store } from '@webhook-idempotency/core';
import { type ConnectionIdentity, connectionOf, sameConnection } from '../connections/identity';
import type { SqlInboxOptions } from './types';

/** A claim's default bound on lock waits and its run (`claimTimeoutMs`). */
const DEFAULT_CLAIM_TIMEOUT_MS = 5000;

/** The claim's options, checked. @throws {ConfigError} naming `skipLocked` or `claimTimeoutMs`. */
export function claimOptionsOf(options: SqlInboxOptions<unknown>): {
  skipLocked: boolean;
  claimTimeoutMs: number;
} {
  const { skipLocked = true, claimTimeoutMs = DEFAULT_CLAIM_TIMEOUT_MS } = options;
  if (typeof skipLocked !== 'boolean') throw new ConfigError('skipLocked', 'must be a boolean');
  if (typeof claimTimeoutMs !== 'number' || !Number.isFinite(claimTimeoutMs) || claimTimeoutMs < 1)
    throw new ConfigError(
      'claimTimeoutMs',
      `must be a number of milliseconds >= 1, got ${String(claimTimeoutMs)}`,
    );
  return { skipLocked, claimTimeoutMs: Math.ceil(claimTimeoutMs) };
}

/**
 * The receipts store an inbox on `connection` was given, checked: a store of this package on the
 * very same connection. @throws {ConfigError} naming `receipts` otherwise.
 */
export function receiptsOn<Tx>(
  connection: ConnectionIdentity,
  receipts: Store<Tx> | undefined,
): Store<Tx> | undefined {
  if (receipts === undefined) return undefined;
  const theirs = connectionOf(receipts);
  if (theirs === undefined)
    throw new ConfigError(
      'receipts',
      'must be a SqlStore: the inbox writes in its transactions, on the same connection',
    );
  if (!sameConnection(connection, theirs) || typeof receipts.withTransaction !== 'function')
    throw new ConfigError(
      'receipts',
      'is a store on another connection (or one without transactions): build the inbox and the store on the same db (the same pool, knex instance, SQLite handle or ORM object), or leave `receipts` out',
    );
  return receipts;
}
