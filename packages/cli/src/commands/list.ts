/** @module `list`: receipts by status, provider, stuck claims and time window. */
import type { ReceiptStatus } from '@webhook-idempotency/core';
import type { ReceiptSummary } from '@webhook-idempotency/sql';
import { formatAge, formatDuration } from '../durations';
import { ExitCode } from '../exit-codes';
import { type Context, withAdmin } from '../session';
import { COLUMN, printListing } from './layout';

/** Options of `list`. */
export interface ListCommandOptions {
  readonly status?: readonly ReceiptStatus[];
  readonly provider?: string;
  readonly stuck?: boolean;
  readonly since?: number;
  readonly limit: number;
  readonly json?: boolean;
}

/**
 * A receipt for `--json`: dates as ISO strings. A listing's exact claim time (its next page's
 * cursor) is left out: the command lists one page.
 */
export const receiptJson = <R extends Omit<ReceiptSummary, 'claimedAtText'>>({
  claimedAtText: _exact,
  ...receipt
}: R & { claimedAtText?: string }) => ({
  ...receipt,
  claimedAt: receipt.claimedAt.toISOString(),
  finishedAt: receipt.finishedAt?.toISOString() ?? null,
});

export async function list(context: Context, options: ListCommandOptions): Promise<number> {
  const { out, staleAfterMs } = context;
  const receipts = await withAdmin(context, (admin) =>
    admin.list({
      ...(options.status ? { status: options.status } : {}),
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      ...(options.stuck ? { stuckAfterMs: staleAfterMs, order: 'oldest' as const } : {}),
      ...(options.since !== undefined ? { sinceMs: options.since } : {}),
      limit: options.limit,
    }),
  );
  printListing(out, options.json, {
    name: 'receipts',
    items: receipts,
    json: receiptJson,
    table: (items) => receiptTable(items, staleAfterMs),
    limit: options.limit,
  });
  return ExitCode.OK;
}

/** The receipts' table, stuck claims' ages in red. */
function receiptTable(receipts: readonly ReceiptSummary[], staleAfterMs: number) {
  // Ages of stuck claims, to paint them.
  const stuck = new Set(
    receipts
      .filter((r) => r.status === 'processing' && r.claimAgeMs >= staleAfterMs)
      .map((r) => `${formatAge(r.claimAgeMs)} ago`),
  );
  const rows = receipts.map((r) => [
    r.provider,
    r.externalId,
    r.status,
    String(r.attempts),
    `${formatAge(r.claimAgeMs)} ago`,
    r.finishedAt ? formatDuration(r.finishedAt.getTime() - r.claimedAt.getTime()) : '-',
    r.error ?? '',
  ]);
  const columns = [
    COLUMN.provider,
    COLUMN.id,
    COLUMN.status,
    COLUMN.attempts,
    {
      header: 'claimed',
      style: (cell: string) => (stuck.has(cell) ? ('red' as const) : undefined),
    },
    { header: 'took', align: 'right' as const },
    COLUMN.error('error'),
  ];
  return { columns, rows };
}
