/** @module `release`: a stuck `processing` receipt → `failed`, so the next delivery runs the handler again. */
import { formatAge } from '../durations';
import { CliError, ExitCode } from '../exit-codes';
import { type Context, type EventKey, withAdmin } from '../session';
import { receiptJson } from './list';

/** Options of `release`. */
export interface ReleaseCommandOptions {
  readonly force?: boolean;
  readonly json?: boolean;
}

export async function release(
  context: Context,
  key: EventKey,
  options: ReleaseCommandOptions,
): Promise<number> {
  const { out, staleAfterMs, table } = context;
  const result = await withAdmin(context, (admin) =>
    admin.release(key, { staleAfterMs, force: options.force === true }),
  );
  const name = `${key.provider} ${key.externalId}`;
  if (options.json)
    out.line(
      JSON.stringify(
        {
          released: result.released,
          ...(result.released ? {} : { reason: result.reason }),
          receipt: result.receipt && receiptJson(result.receipt),
        },
        null,
        2,
      ),
    );
  if (result.released) {
    if (!options.json) {
      out.line(`Released ${name}: processing → failed (attempt ${result.receipt.attempts}).`);
      out.line(
        `The provider's next delivery of it runs the handler again (attempt ${result.receipt.attempts + 1}).`,
      );
    }
    return ExitCode.OK;
  }
  if (result.reason === 'not-found')
    throw new CliError(ExitCode.NOT_FOUND, `No receipt ${name} in ${table}.`);
  const { receipt } = result;
  const why =
    result.reason === 'fresh'
      ? `${name}: claimed ${formatAge(receipt.claimAgeMs)} ago, under --stale-after ${formatAge(staleAfterMs)}.\n` +
        'Its worker may be alive: wait, or pass --force (its result will be refused).'
      : result.reason === 'not-processing'
        ? `${name} is ${receipt.status}, not processing: nothing to release.`
        : `${name} is no longer the claim read (now ${receipt.status}, attempt ${receipt.attempts}): left as it is.`;
  throw new CliError(ExitCode.REFUSED, why);
}
