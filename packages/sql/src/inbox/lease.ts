/** @module SqlInbox's lease call: one short transaction that picks and locks the due rows, then leases them. */
import { ConfigError } from '@webhook-idempotency/core';
import type { DeliveryLease } from '@webhook-idempotency/core/inbox';
import { leasesOf } from '@webhook-idempotency/core/adapter';
import type { DialectSpec } from '../dialects';
import type { Executor, Row } from '../connections/executor';
import type { InboxQueries } from './queries';

/** What a lease call takes. */
export interface LeaseInput {
  readonly providers: readonly string[];
  readonly limit: number;
  readonly leaseMs: number;
  /** Which expired leases are taken over: all (`true`), none, or those listed (`leaseRefs`). */
  readonly takeOver?: boolean | readonly DeliveryLease[];
}

/** What a lease call runs on: the inbox's executor, statements and bound. */
export interface LeaseContext {
  readonly executor: Executor;
  readonly spec: DialectSpec;
  readonly sql: InboxQueries;
  readonly table: string;
  readonly leaseTimeoutMs: number;
}

/** How much longer than its bound a claim's connection is waited on before it is given up (a connection that went silent). */
const LEASE_CLIENT_MARGIN_MS = 1000;
/** The most deliveries one lease call or lease renewal takes (the placeholder limits of the databases). */
const MAX_LEASES = 1000;

/**
 * The lease call's transaction; the rows as they were before the lease (`refs`: reference columns
 * only). @throws {ConfigError} for a `limit` above 1000 or a `takeOver` list that long.
 */
export async function leaseRowsOf(
  context: LeaseContext,
  { providers, limit, leaseMs, takeOver = true }: LeaseInput,
  refs: boolean,
): Promise<Row[]> {
  const { executor, spec, sql, table, leaseTimeoutMs } = context;
  if (limit > MAX_LEASES) throw new ConfigError('limit', `must be at most ${MAX_LEASES}`);
  if (typeof takeOver !== 'boolean' && (!Array.isArray(takeOver) || takeOver.length > MAX_LEASES))
    throw new ConfigError('takeOver', `must be a boolean or at most ${MAX_LEASES} leases`);
  if (providers.length === 0 || limit < 1) return [];
  const listed = typeof takeOver === 'boolean' ? [] : takeOver;
  const bound = spec.inbox.boundLease(
    sql.leaseSelect(
      providers.length,
      refs,
      typeof takeOver === 'boolean' ? takeOver : listed.length,
    ),
    leaseTimeoutMs,
  );
  const leaseParams = listed.flatMap((lease) => [lease.id, leasesOf(lease)]);
  return executor.transaction(
    async (transaction) => {
      if (bound.setup) await executor.query(bound.setup, [], transaction);
      const { rows } = await executor.query(
        bound.select,
        [...providers, ...leaseParams, limit],
        transaction,
      );
      if (rows.length === 0) return [];
      await executor.query(
        sql.leaseUpdate(rows.length),
        [leaseMs, ...rows.map((row) => Number(row.id))],
        transaction,
      );
      return [...rows];
    },
    {
      lockStatement: spec.lockForWrite?.(spec.quote(table)),
      signal: AbortSignal.timeout(leaseTimeoutMs + LEASE_CLIENT_MARGIN_MS),
    },
  );
}
