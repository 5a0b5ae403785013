/**
 * @module `redeliver`: put a dead or done inbox delivery back for processing, deliberately. A done
 * one needs `--force`, and its receipt is deleted first so that the handler runs again.
 */
import { movedSince, redeliverDelivery } from '@webhook-idempotency/core/operations';
import { ReceiptsAdmin } from '@webhook-idempotency/sql';
import { CliError, ExitCode } from '../exit-codes';
import { type Context, missingTable, probe, withInbox } from '../session';
import { deliveryJson } from './inbox-list';
import { noDelivery } from './inbox-show';

/** Options of `redeliver`. */
export interface RedeliverCommandOptions {
  /** Redeliver a `done` delivery too: its handler runs again. */
  readonly force?: boolean;
  readonly json?: boolean;
}

export async function redeliver(
  context: Context,
  key: { provider: string; externalId: string },
  options: RedeliverCommandOptions,
): Promise<number> {
  const { out, table } = context;
  const { provider, externalId } = key;
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
  const { before, after } = outcome;
  const name = `${provider} ${externalId}`;
  if (options.json)
    out.line(
      JSON.stringify(
        {
          redelivered: outcome.redelivered,
          previous: before.status,
          receiptForgotten: outcome.receiptForgotten,
          ...(outcome.redelivered ? {} : { reason: outcome.reason }),
          delivery: after && deliveryJson(after),
        },
        null,
        2,
      ),
    );
  if (outcome.redelivered) {
    const next = `attempt ${before.attempts + 1} next`;
    if (!options.json)
      out.line(
        before.status === 'dead'
          ? `Redelivered ${name}: dead → pending, due now (${next}).\nIts failure count starts again from 0.`
          : `Redelivered ${name}: done → pending, due now (${next}); ` +
              (outcome.receiptForgotten
                ? `its receipt in ${table} was deleted, so the handler runs again.`
                : `it had no receipt in ${table}, so the handler runs again.`),
      );
    return ExitCode.OK;
  }
  const why = {
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
  throw new CliError(ExitCode.REFUSED, why);
}
