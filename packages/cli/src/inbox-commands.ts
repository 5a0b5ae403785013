/** @module The inbox commands: `inbox list|show|retry|dead`, added to the program. */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { type Command, Option } from 'commander';
import { inboxDead } from './commands/inbox-dead';
import { inboxList } from './commands/inbox-list';
import { type InboxRetryCommandOptions, inboxRetry } from './commands/inbox-retry';
import { type InboxRetryAllCommandOptions, inboxRetryAll } from './commands/inbox-retry-all';
import { inboxShow } from './commands/inbox-show';
import { parseDuration } from './durations';
import { CliError, ExitCode } from './exit-codes';
import { addRedeliverCommand } from './redeliver-command';
import { addCommands, type CommandRow, limitOption, runs, runsOnKey, type Wiring } from './wiring';

/** The inbox's commands, in the order its help lists them. */
const INBOX_COMMANDS: readonly CommandRow[] = [
  ['list', 'list stored deliveries, oldest first (receipt order)', addList],
  [
    'show',
    'one delivery: status, leases, failures, times, last error, headers, body size',
    addShow,
  ],
  [
    'retry',
    'a dead delivery back to pending, or a pending one waiting for its backoff due now; --all-dead: every dead one',
    addRetry,
  ],
  ['dead', 'the dead-lettered deliveries, oldest first, with their last errors', addDead],
];

/** Adds `inbox …` and `redeliver` to `program`, in the order its help lists them. */
export function addInboxCommands(program: Command, wiring: Wiring): void {
  const inbox = program
    .command('inbox')
    .description(
      'read and repair the inbox deliveries table (--inbox-table): list, show, retry, dead',
    );
  addCommands(inbox, wiring, INBOX_COMMANDS);
  addRedeliverCommand(program, wiring);
}

function addList(command: Command, wiring: Wiring): void {
  command
    .addOption(
      new Option('--status <status>', 'only deliveries in this status').choices(
        Object.values(DeliveryStatus),
      ),
    )
    .option('--provider <name>', 'only this provider')
    .option('--since <duration>', 'only deliveries received within this window', parseDuration);
  runs(limitOption(command), wiring, inboxList);
}

function addShow(command: Command, wiring: Wiring): void {
  command.option('--body', 'print the body bytes too (they may hold personal data)');
  runsOnKey(command, wiring, 'the provider (e.g. stripe)', inboxShow);
}

function addRetry(command: Command, wiring: Wiring): void {
  command
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
    .action(retryAction(wiring));
}

type RetryOptions = InboxRetryCommandOptions & InboxRetryAllCommandOptions & { allDead?: boolean };

/** `inbox retry`'s action: one delivery by its key, or every dead one with `--all-dead`. */
function retryAction({ context, done }: Wiring) {
  return async (
    provider: string | undefined,
    externalId: string | undefined,
    options: RetryOptions,
    command: Command,
  ) => {
    const bulk = options.allDead === true;
    const filters = (['provider', 'since', 'dryRun'] as const).filter(
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
      throw new CliError(ExitCode.USAGE, '--provider, --since and --dry-run go with --all-dead.');
    const ctx = context(command, options.json);
    done(
      bulk
        ? await inboxRetryAll(ctx, options)
        : await inboxRetry(ctx, { provider: provider!, externalId: externalId! }, options),
    );
  };
}

function addDead(command: Command, wiring: Wiring): void {
  command.option('--provider <name>', 'only this provider');
  limitOption(command).option(
    '--fail-on-dead',
    `exit with ${ExitCode.DEAD} when a delivery is dead (for cron)`,
  );
  runs(command, wiring, inboxDead);
}
