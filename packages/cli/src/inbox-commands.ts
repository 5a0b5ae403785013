/** @module The inbox commands: `inbox list|show|retry|dead` and `redeliver`, added to the program. */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { type Command, Option } from 'commander';
import { inboxDead } from './commands/inbox-dead';
import { inboxList } from './commands/inbox-list';
import { inboxRetry } from './commands/inbox-retry';
import { inboxRetryAll } from './commands/inbox-retry-all';
import { inboxShow } from './commands/inbox-show';
import { redeliver } from './commands/redeliver';
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

  program
    .command('redeliver')
    .description(
      'put a dead or done inbox delivery back for processing, deliberately (done: --force)',
    )
    .argument('<provider>', 'the provider')
    .argument('<id>', "the provider's event or delivery id")
    .option(
      '--force',
      'redeliver a done delivery too: its receipt is deleted and the handler runs again',
    )
    .option('--json', 'print JSON')
    .action(async (provider: string, externalId: string, options, command: Command) =>
      done(await redeliver(context(command, options.json), { provider, externalId }, options)),
    );
}
