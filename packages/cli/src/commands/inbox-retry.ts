/**
 * @module `inbox retry`: a dead delivery back to pending (a fresh budget of failures), or a pending
 * one waiting for its backoff made due now; a processing or done one is refused, and so is one
 * that moved between the command's read and its write (a compare-and-set: it is left as it is).
 */
import { movedSince, retryDelivery } from '@webhook-idempotency/core/operations';
import { formatAge } from '../durations';
import { CliError, ExitCode } from '../exit-codes';
import { type Context, type EventKey, withInbox } from '../session';
import { due } from './inbox-list';
import { noDelivery } from './inbox-show';
import { repairJson } from './repair-json';

/** Options of `inbox retry`. */
export interface InboxRetryCommandOptions {
  readonly json?: boolean;
}

export async function inboxRetry(
  context: Context,
  key: EventKey,
  options: InboxRetryCommandOptions,
): Promise<number> {
  const { out } = context;
  const { provider, externalId } = key;
  const outcome = await withInbox(context, (inbox) => retryDelivery(inbox, key));
  if (!outcome) throw noDelivery(context, key);
  const { before, after } = outcome;
  const name = `${provider} ${externalId}`;
  if (options.json) out.line(JSON.stringify(repairJson(outcome), null, 2));
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
      out.line(`${name} is pending and due already: a worker takes it at its next poll.`);
    return ExitCode.OK;
  }
  const lease = before.availableAt.getTime() - Date.now();
  throw new CliError(
    ExitCode.REFUSED,
    outcome.reason === 'processing'
      ? `${name} is processing (lease ${before.leases}): a worker has it. If that worker died, ` +
          `another takes it over when its lease ends${lease > 0 ? ` in ${formatAge(lease)}` : ''}.`
      : outcome.reason === 'done'
        ? `${name} is done: its handler ran and committed; nothing to retry.\n` +
          `To run the handler again, deliberately: webhook-idempotency redeliver ${name} --force`
        : `${name} ${movedSince(before, after)}: left as it is.`,
  );
}
