/** @module The inbox commands: `inbox list|show|retry|dead` and `redeliver`, added to the program. */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { type Command, Option } from 'commander';
import { inboxDead } from './commands/inbox-dead';
import { inboxList } from './commands/inbox-list';
import { inboxRetry } from './commands/inbox-retry';
import { inboxRetryAll } from './commands/inbox-retry-all';
import { inboxShow } from './commands/inbox-show';
import { type RedeliverCommandOptions, redeliver } from './commands/redeliver';
import { type RedeliverQueryOptions, redeliverQuery } from './commands/redeliver-query';
import { parseBulkStatuses, parseTime } from './bulk/query';
import { parseDuration, parseWhole } from './durations';
import { CliError, ExitCode } from './exit-codes';
import type { Context } from './session';

/** Builds a command's {@link Context}; `json` turns colour off on stdout. */
type ContextOf = (command: Command, json?: boolean) => Context;

/** Adds `inbox …` and `redeliver` to `program`; each action hands its exit code to `done`. */
export function addInboxCommands(
  program: Command,
  context: ContextOf,
  done: (code: number) => void,
): void {
  const limit = (command: Command) =>
    command.option('--limit <n>', 'at most this many (up to 10000)', parseWhole(1, 10_000), 50);
  const inbox = program
    .command('inbox')
    .description(
      'read and repair the inbox deliveries table (--inbox-table): list, show, retry, dead',
    );

  limit(
    inbox
      .command('list')
      .description('list stored deliveries, oldest first (receipt order)')
      .addOption(
        new Option('--status <status>', 'only deliveries in this status').choices(
          Object.values(DeliveryStatus),
        ),
      )
      .option('--provider <name>', 'only this provider')
      .option('--since <duration>', 'only deliveries received within this window', parseDuration),
  )
    .option('--json', 'print JSON')
    .action(async (options, command: Command) =>
      done(await inboxList(context(command, options.json), options)),
    );

  inbox
    .command('show')
    .description('one delivery: status, attempts, failures, times, last error, headers, body size')
    .argument('<provider>', 'the provider (e.g. stripe)')
    .argument('<id>', "the provider's event or delivery id")
    .option('--body', 'print the body bytes too (they may hold personal data)')
    .option('--json', 'print JSON')
    .action(async (provider: string, externalId: string, options, command: Command) =>
      done(await inboxShow(context(command, options.json), { provider, externalId }, options)),
    );

  inbox
    .command('retry')
    .description(
      'a dead delivery back to pending, or a pending one waiting for its backoff due now; --all-dead: every dead one',
    )
    .argument('[provider]', 'the provider')
    .argument('[id]', "the provider's event or delivery id")
    .option('--all-dead', 'retry every dead delivery (with --provider, --since) instead of one')
    .option('--provider <name>', 'with --all-dead: only this provider')
    .option(
      '--since <duration>',
      'with --all-dead: only deliveries dead within this window',
      parseDuration,
    )
    .option('--dry-run', 'with --all-dead: list what would be retried, change nothing')
    .option('--json', 'print JSON')
    .action(
      async (
        provider: string | undefined,
        externalId: string | undefined,
        options,
        command: Command,
      ) => {
        const bulk = options.allDead === true;
        const filters = ['provider', 'since', 'dryRun'].filter(
          (name) => options[name] !== undefined,
        );
        if (bulk && provider !== undefined)
          throw new CliError(
            ExitCode.USAGE,
            'inbox retry --all-dead takes no <provider> <id>: filter with --provider.',
          );
        if (!bulk && (provider === undefined || externalId === undefined))
          throw new CliError(ExitCode.USAGE, 'inbox retry needs <provider> <id>, or --all-dead.');
        if (!bulk && filters.length > 0)
          throw new CliError(
            ExitCode.USAGE,
            '--provider, --since and --dry-run go with --all-dead.',
          );
        const ctx = context(command, options.json);
        done(
          bulk
            ? await inboxRetryAll(ctx, options)
            : await inboxRetry(ctx, { provider: provider!, externalId: externalId! }, options),
        );
      },
    );

  limit(
    inbox
      .command('dead')
      .description('the dead-lettered deliveries, oldest first, with their last errors')
      .option('--provider <name>', 'only this provider'),
  )
    .option('--fail-on-dead', `exit with ${ExitCode.DEAD} when a delivery is dead (for cron)`)
    .option('--json', 'print JSON')
    .action(async (options, command: Command) =>
      done(await inboxDead(context(command, options.json), options)),
    );

  addRedeliver(program, context, done);
}

/** The single `redeliver <provider> <id>` and the bulk `redeliver --status …`. */
function addRedeliver(program: Command, context: ContextOf, done: (code: number) => void): void {
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
    .action(redeliverAction(context, done));
}

const BULK_ONLY = ['status', 'provider', 'since', 'until', 'plan', 'dryRun', 'yes', 'pageSize'];

/** `redeliver`'s action: one delivery by its key, or those a query (or a plan file) selects. */
function redeliverAction(context: ContextOf, done: (code: number) => void) {
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
