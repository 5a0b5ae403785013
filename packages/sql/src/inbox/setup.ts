/** @module What `SqlInbox` checks as it is built: its lease calls' options, and the receipts store it is given. */
import { ConfigError, type Store } from '@webhook-idempotency/core';
import { givenName, renamedOption } from '@webhook-idempotency/core/adapter';
import { type ConnectionIdentity, connectionOf, sameConnection } from '../connections/identity';
import type { SqlInboxOptions } from './types';

/** A lease call's default bound on lock waits and its run (`leaseTimeoutMs`). */
const DEFAULT_LEASE_TIMEOUT_MS = 5000;

/**
 * The lease calls' options, checked: `skipLocked`, and `leaseTimeoutMs` (or its deprecated name
 * `claimTimeoutMs`). @throws {ConfigError} naming the option as given, or both names disagreeing.
 */
export function leaseOptionsOf(options: SqlInboxOptions<unknown>): {
  skipLocked: boolean;
  leaseTimeoutMs: number;
} {
  const { skipLocked = true } = options;
  if (typeof skipLocked !== 'boolean') throw new ConfigError('skipLocked', 'must be a boolean');
  const timeout =
    renamedOption(options, 'leaseTimeoutMs', 'claimTimeoutMs') ?? DEFAULT_LEASE_TIMEOUT_MS;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 1)
    throw new ConfigError(
      givenName(options, 'leaseTimeoutMs', 'claimTimeoutMs'),
      `must be a number of milliseconds >= 1, got ${String(timeout)}`,
    );
  return { skipLocked, leaseTimeoutMs: Math.ceil(timeout) };
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
