/** @module `ReceiptsAdmin.ignored`: the ignored-event counts table read for an operator, per provider and type. */
import { StoreError } from '@webhook-idempotency/core';
import type { StatementRunner } from '../connections/executor';
import type { DialectSpec } from '../dialects';
import { IgnoredTable, ignoredTableOf, totalsIfCounted } from '../receipts/ignored';
import { requireMs } from './checks';
import type { IgnoredOptions, IgnoredReport } from './types';

const HOUR = 3_600_000;

/** The report of the hours of the last `sinceMs` (by this process's clock, which the counting guards' share). */
export async function ignoredReport(
  runner: StatementRunner,
  spec: DialectSpec,
  receipts: string,
  { sinceMs, provider }: IgnoredOptions,
): Promise<IgnoredReport> {
  const now = Date.now();
  const from = Math.floor((now - requireMs('sinceMs', sinceMs)) / HOUR) * HOUR;
  const table = ignoredTableOf(receipts);
  let events: Awaited<ReturnType<typeof totalsIfCounted>>;
  try {
    events = await totalsIfCounted(new IgnoredTable(runner, spec, receipts), spec, {
      now,
      since: from,
      provider,
    });
  } catch (error) {
    throw new StoreError(`ignored on table ${table}`, error);
  }
  const total = events?.reduce((sum, row) => sum + row.count, 0) ?? 0;
  return { table, since: new Date(from), counted: events !== null, total, events: events ?? [] };
}
