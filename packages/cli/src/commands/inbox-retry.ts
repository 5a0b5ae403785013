/**
 * @module `inbox retry` and `outbox retry`: a dead delivery (message) back to pending (a fresh
 * budget of failures), or a pending one waiting for its backoff made due now; a processing or done
 * one is refused, and so is one that moved between the command's read and its write (a
 * compare-and-set: it is left as it is).
 */
import { movedSince, retryDelivery } from '@webhook-idempotency/core/operations';
import { formatAge } from '../durations';
import { CliError, ExitCode } from '../exit-codes';
import { due, INBOX_ROWS, type RowTable } from '../row-tables';
import type { Context, EventKey } from '../session';
import { onDelivery } from './inbox-show';
import { repairJson } from './repair-json';

/** Options of `inbox retry`. */
export interface InboxRetryCommandOptions {
  readonly json?: boolean;
}

export async function inboxRetry(
  context: Context,
  key: EventKey,
  options: InboxRetryCommandOptions,
  rows: RowTable = INBOX_ROWS,
): Promise<number> {
  const { out } = context;
  const { provider, externalId } = key;
  const outcome = await onDelivery(context, key, rows, (inbox) => retryDelivery(inbox, key));
  const { before, after } = outcome;
  const name = `${provider} ${externalId}`;
  if (options.json) out.line(JSON.stringify(repairJson(outcome, rows), null, 2));
  const next = `lease ${before.leases + 1} next`;
  if (outcome.retried) {
    if (!options.json)
      out.line(
        before.status === 'dead'
          ? `Retrying ${name}: dead → pending, due now (${next}).\nIts failure count starts again from 0.`
          : `Retrying ${name}: pending, due now (it was due ${due(before)}; ${next}).`,
      );
    return ExitCode.OK;
  }
  if (outcome.reason === 'due') {
    if (!options.json)
      out.line(`${name} is pending and due already: a ${rows.runner} takes it at its next poll.`);
    return ExitCode.OK;
  }
  const lease = before.availableAt.getTime() - Date.now();
  throw new CliError(
    ExitCode.REFUSED,
    outcome.reason === 'processing'
      ? `${name} is processing (lease ${before.leases}): a ${rows.runner} has it. If that ${rows.runner} died, ` +
          `another takes it over when its lease ends${lease > 0 ? ` in ${formatAge(lease)}` : ''}.`
      : outcome.reason === 'done'
        ? `${name} is done: ${rows.doneRefusal(name)}`
        : `${name} ${movedSince(before, after)}: left as it is.`,
  );
}
