/** @module `redeliver`, added to the program: one delivery by its key, or those a query or a plan selects. */
import type { Command } from 'commander';
import { type RedeliverCommandOptions, redeliver } from './commands/redeliver';
import { type RedeliverQueryOptions, redeliverQuery } from './commands/redeliver-query';
import { parseBulkStatuses, parseTime } from './bulk/query';
import { parseWhole } from './durations';
import { CliError, ExitCode } from './exit-codes';
import type { Wiring } from './wiring';

/** The single `redeliver <provider> <id>` and the bulk `redeliver --status …`. */
export function addRedeliverCommand(program: Command, wiring: Wiring): void {
  program
    .command('redeliver')
    .description(
      'put a dead or done inbox delivery back for processing, deliberately (done: --force); ' +
        'or every one a query selects (--status, --provider, --since, --until; --dry-run first)',
    )
    .argument('[provider]', 'the provider')
    .argument('[id]', "the provider's event or delivery id")
    .option(
      '--force',
      'redeliver a done delivery too: its receipt is deleted and the handler runs again',
    )
    .option(
      '--status <statuses>',
      'by query: dead, waiting (pending after a failure, until its backoff) or done (comma-separated)',
      parseBulkStatuses,
    )
    .option('--provider <name>', 'by query: only this provider')
    .option(
      '--since <time>',
      'by query: received at or after (24h: a duration ago, or ISO)',
      parseTime,
    )
    .option('--until <time>', 'by query: received before (24h: a duration ago, or ISO)', parseTime)
    .option(
      '--dry-run',
      'by query: list what would change (id, provider, id, now → after), change nothing',
    )
    .option(
      '--plan <file>',
      "apply exactly what a '--dry-run --json' listed, each only if unchanged",
    )
    .option(
      '--yes',
      'by query: do not ask for confirmation (required when stdin is not a terminal)',
    )
    .option(
      '--page-size <n>',
      'by query: rows per listing read (up to 10000)',
      parseWhole(1, 10_000),
      500,
    )
    .option('--json', 'print JSON')
    .action(redeliverAction(wiring));
}

const BULK_ONLY = ['status', 'provider', 'since', 'until', 'plan', 'dryRun', 'yes', 'pageSize'];

/** `redeliver`'s action: one delivery by its key, or those a query (or a plan file) selects. */
function redeliverAction({ context, done }: Wiring) {
  return async (
    provider: string | undefined,
    externalId: string | undefined,
    options: RedeliverCommandOptions & RedeliverQueryOptions,
    command: Command,
  ) => {
    const given = BULK_ONLY.filter((name) => command.getOptionValueSource(name) === 'cli');
    if (provider !== undefined) {
      if (externalId === undefined)
        throw new CliError(ExitCode.USAGE, 'redeliver needs <provider> <id>, or --status.');
      if (given.length > 0)
        throw new CliError(
          ExitCode.USAGE,
          'redeliver <provider> <id> takes no query options: drop the arguments to redeliver by query.',
        );
      const ctx = context(command, options.json);
      return done(await redeliver(ctx, { provider, externalId }, options));
    }
    if ((options.status === undefined) === (options.plan === undefined))
      throw new CliError(
        ExitCode.USAGE,
        'redeliver needs <provider> <id>, or a query with --status, or --plan <file>.',
      );
    if (
      options.plan !== undefined &&
      given.some((name) => ['provider', 'since', 'until'].includes(name))
    )
      throw new CliError(ExitCode.USAGE, '--plan applies a listing as it is: it takes no filters.');
    done(await redeliverQuery(context(command, options.json), options));
  };
}
