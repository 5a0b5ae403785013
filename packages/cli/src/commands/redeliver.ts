/**
 * @module `redeliver`: put a dead or done inbox delivery back for processing, deliberately. A done
 * one needs `--force`, and its receipt is deleted first so that the handler runs again.
 */
import {
  movedSince,
  type RedeliverOutcome,
  redeliverDelivery,
} from '@webhook-idempotency/core/operations';
import { ReceiptsAdmin } from '@webhook-idempotency/sql';
import { CliError, ExitCode } from '../exit-codes';
import { type Context, type EventKey, missingTable, probe, withInbox } from '../session';
import { noDelivery } from './inbox-show';
import { repairJson } from './repair-json';

/** Options of `redeliver`. */
export interface RedeliverCommandOptions {
  /** Redeliver a `done` delivery too: its handler runs again. */
  readonly force?: boolean;
  readonly json?: boolean;
}

export async function redeliver(
  context: Context,
  key: EventKey,
  options: RedeliverCommandOptions,
): Promise<number> {
  const { out, table } = context;
  const outcome = await withInbox(context, (inbox, opened) =>
    redeliverDelivery(
      {
        inbox,
        receipts: async () => {
          const admin = new ReceiptsAdmin(opened.db, { table, acquireTimeoutMs: 10_000 });
          if (!(await probe(context, admin))) throw missingTable(context, '');
          return admin;
        },
      },
      key,
      { force: options.force === true },
    ),
  );
  if (!outcome) throw noDelivery(context, key);
  const name = `${key.provider} ${key.externalId}`;
  if (options.json) out.line(JSON.stringify(repairJson(outcome), null, 2));
  if (!outcome.redelivered) throw new CliError(ExitCode.REFUSED, refusal(name, table, outcome));
  if (!options.json) out.line(redelivered(name, table, outcome));
  return ExitCode.OK;
}

/** What a redelivery did, in words. */
function redelivered(name: string, table: string, { before, receiptForgotten }: RedeliverOutcome) {
  const next = `lease ${before.leases + 1} next`;
  return before.status === 'dead'
    ? `Redelivered ${name}: dead → pending, due now (${next}).\nIts failure count starts again from 0.`
    : `Redelivered ${name}: done → pending, due now (${next}); ` +
        (receiptForgotten
          ? `its receipt in ${table} was deleted, so the handler runs again.`
          : `it had no receipt in ${table}, so the handler runs again.`);
}

/** Why a delivery was not redelivered, and what to do about it. */
function refusal(
  name: string,
  table: string,
  outcome: Extract<RedeliverOutcome, { redelivered: false }>,
): string {
  const { before, after } = outcome;
  return {
    'not-finished':
      `${name} is ${before.status}, not finished: nothing to redeliver.` +
      (before.status === 'pending' ? ' (inbox retry makes it due now.)' : ''),
    'needs-force':
      `${name} is done: its handler ran and committed.\n` +
      'Redelivering runs the handler again, so its effect happens a second time\n' +
      'unless the handler is itself idempotent. Pass --force to redeliver it anyway.',
    'receipt-processing': `${name}: its receipt in ${table} is held by a run (processing): nothing was changed.`,
    changed:
      `${name} ${movedSince(before, after)}: left as it is.` +
      (outcome.receiptForgotten ? ` Its receipt in ${table} had been deleted first.` : ''),
  }[outcome.reason];
}
