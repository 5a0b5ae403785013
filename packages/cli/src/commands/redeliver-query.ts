/**
 * @module `redeliver --status …`: every inbox delivery a query selects (dead, waiting for its
 * backoff, or done with `--force`; of one provider; received within a time range) back for
 * processing, due now. `--dry-run` lists exactly what would change and changes nothing; `--json`
 * of it is a plan that `--plan` applies later, each delivery only while it is still as listed. A
 * real run asks first on a terminal (`--yes` does not; without a terminal `--yes` is required).
 * Each write is the compare-and-set of the single repairs: one that moved is left as it is, named
 * with what it is now, and the command exits with `LEFT`.
 */
import { leaseCount } from '@webhook-idempotency/core/adapter';
import { ReceiptsAdmin } from '@webhook-idempotency/sql';
import { applyPlanned, type Applied, readPlan } from '../bulk/apply';
import { confirm, needsConfirmation } from '../bulk/confirm';
import { type BulkStatus, type Planned, selectDeliveries } from '../bulk/query';
import { formatAge } from '../durations';
import { CliError, ExitCode } from '../exit-codes';
import { type Printer, renderTable } from '../output';
import { type Context, missingTable, probe, withInbox } from '../session';
import { ago } from './inbox-list';

/** Options of `redeliver` by query. */
export interface RedeliverQueryOptions {
  readonly status?: readonly BulkStatus[];
  readonly provider?: string;
  /** Received at or after. */
  readonly since?: Date;
  /** Received before. */
  readonly until?: Date;
  readonly pageSize: number;
  /** A file holding what `--dry-run --json` printed: apply exactly those. */
  readonly plan?: string;
  readonly dryRun?: boolean;
  readonly yes?: boolean;
  readonly force?: boolean;
  readonly json?: boolean;
}

/** `done → pending`, `dead → pending`, `pending (due in 12m) → due now`. */
function change(p: Planned, now: number): string {
  if (p.status !== 'pending') return `${p.status} → pending`;
  const left = p.availableAt.getTime() - now;
  return `pending (due in ${Number.isNaN(left) ? '?' : formatAge(left)}) → due now`;
}

const plannedJson = (p: Planned) => ({
  id: p.id,
  provider: p.provider,
  externalId: p.externalId,
  status: p.status,
  ...leaseCount(p.leases),
  receivedAt: Number.isNaN(p.receivedAt.getTime()) ? null : p.receivedAt.toISOString(),
  availableAt: Number.isNaN(p.availableAt.getTime()) ? null : p.availableAt.toISOString(),
  after: 'pending',
});

function printSelected(printer: Printer, selected: readonly Planned[], now: number): void {
  const rows = selected.map((p) => [
    String(p.id),
    p.provider,
    p.externalId,
    Number.isNaN(p.receivedAt.getTime()) ? '-' : ago(p.receivedAt, now),
    change(p, now),
  ]);
  const columns = [
    { header: 'id', align: 'right' as const },
    { header: 'provider', flexible: true },
    { header: 'external id', flexible: true },
    { header: 'received' },
    { header: 'status now → after' },
  ];
  for (const line of renderTable(printer, columns, rows)) printer.line(line);
}

const count = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

const NEEDS_FORCE =
  'Redelivering done deliveries runs their handlers again, so their effects happen a second\n' +
  'time unless the handlers are themselves idempotent. Pass --force to redeliver them anyway.';

/** The dry run's answer: the list, and that nothing changed. */
function printDryRun(context: Context, options: RedeliverQueryOptions, selected: Planned[]) {
  const { out, inboxTable } = context;
  const now = Date.now();
  if (options.json) {
    const deliveries = selected.map(plannedJson);
    out.line(JSON.stringify({ table: inboxTable, dryRun: true, deliveries }, null, 2));
    return;
  }
  if (selected.length === 0) return out.line(`No deliveries in ${inboxTable} match.`);
  printSelected(out, selected, now);
  out.line(`Dry run: would redeliver ${count(selected.length)}; nothing was changed.`);
  if (selected.some((p) => p.status === 'done') && !options.force)
    out.line('The run needs --force: done deliveries run their handlers again.');
}

/** The run's answer: how many changed, and each one left as it is with what it is now. */
function printApplied(context: Context, options: RedeliverQueryOptions, applied: Applied) {
  const { out, inboxTable } = context;
  const { changed, left } = applied;
  if (options.json) {
    const report = {
      table: inboxTable,
      dryRun: false,
      matched: changed.length + left.length,
      redelivered: changed.length,
      deliveries: changed.map(plannedJson),
      left: left.map(({ planned, now, reason }) => ({
        provider: planned.provider,
        externalId: planned.externalId,
        listed: { status: planned.status, ...leaseCount(planned.leases) },
        now: now && { status: now.status, ...leaseCount(now.leases) },
        reason,
      })),
    };
    return out.line(JSON.stringify(report, null, 2));
  }
  out.line(`Redelivered ${count(changed.length)}: pending, due now.`);
  if (left.length === 0) return;
  out.line(
    `Left as ${left.length === 1 ? 'it is' : 'they are'}, changed since listed: ${left.length}.`,
  );
  for (const { planned, reason } of left)
    out.line(`  ${planned.provider} ${planned.externalId} ${reason}`);
}

export async function redeliverQuery(
  context: Context,
  options: RedeliverQueryOptions,
): Promise<number> {
  const { io, err, table, inboxTable } = context;
  const dryRun = options.dryRun === true;
  const fromPlan = options.plan === undefined ? undefined : readPlan(options.plan);
  const wantsDone = fromPlan
    ? fromPlan.some((p) => p.status === 'done')
    : (options.status ?? []).includes('done');
  if (!dryRun && wantsDone && !options.force) throw new CliError(ExitCode.REFUSED, NEEDS_FORCE);
  if (!dryRun && !options.yes) needsConfirmation(io, 'redeliver by query');
  return withInbox(context, async (inbox, opened) => {
    const selected =
      fromPlan ??
      (await selectDeliveries(inbox, {
        statuses: options.status ?? [],
        ...(options.provider !== undefined ? { provider: options.provider } : {}),
        ...(options.since ? { receivedFrom: options.since } : {}),
        ...(options.until ? { receivedBefore: options.until } : {}),
        pageSize: options.pageSize,
      }));
    if (dryRun || (selected.length === 0 && !options.json)) {
      printDryRun(context, { ...options, dryRun: true }, selected);
      return ExitCode.OK;
    }
    if (selected.length > 0 && !options.yes) {
      printSelected(err, selected, Date.now());
      const question = `Redeliver ${count(selected.length)} in ${inboxTable}?`;
      if (!(await confirm(io, err, question)))
        throw new CliError(ExitCode.REFUSED, 'Not confirmed: nothing was changed.');
    }
    let admin: Promise<ReceiptsAdmin> | undefined;
    const receipts = () => {
      admin ??= (async () => {
        const receiptsAdmin = new ReceiptsAdmin(opened.db, { table, acquireTimeoutMs: 10_000 });
        if (!(await probe(context, receiptsAdmin))) throw missingTable(context, '');
        return receiptsAdmin;
      })();
      return admin;
    };
    const applied = await applyPlanned(inbox, receipts, selected);
    printApplied(context, options, applied);
    return applied.left.length > 0 ? ExitCode.LEFT : ExitCode.OK;
  });
}
