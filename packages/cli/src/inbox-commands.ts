/**
 * @module The inbox's commands (`inbox list|show|retry|dead`) and the outbox's (`outbox
 * list|show|retry|dead`), added to the program: one set of commands over the two tables of leased
 * rows, each in its own words (provider and id, or sender and key).
 */
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { type Command, Option } from 'commander';
import { type InboxDeadCommandOptions, inboxDead } from './commands/inbox-dead';
import { type InboxListCommandOptions, inboxList } from './commands/inbox-list';
import { type InboxRetryCommandOptions, inboxRetry } from './commands/inbox-retry';
import { type InboxRetryAllCommandOptions, inboxRetryAll } from './commands/inbox-retry-all';
import { inboxShow } from './commands/inbox-show';
import { parseDuration } from './durations';
import { CliError, ExitCode } from './exit-codes';
import { addRedeliverCommand } from './redeliver-command';
import { INBOX_ROWS, OUTBOX_ROWS, type RowTable } from './row-tables';
import type { Context } from './session';
import { addCommands, type CommandRow, limitOption, runs, type Wiring } from './wiring';

/** A table's commands, in the order its help lists them. */
const rowCommands = (rows: RowTable): readonly CommandRow[] => [
  ['list', rows.help.list, (command, wiring) => addList(command, wiring, rows)],
  ['show', rows.help.show, (command, wiring) => addShow(command, wiring, rows)],
  [
    'retry',
    `a dead ${rows.one} back to pending, or a pending one waiting for its backoff due now; --all-dead: every dead one`,
    (command, wiring) => addRetry(command, wiring, rows),
  ],
  ['dead', rows.help.dead, (command, wiring) => addDead(command, wiring, rows)],
];

/** Adds `inbox …`, `outbox …` and `redeliver` to `program`, in the order its help lists them. */
export function addInboxCommands(program: Command, wiring: Wiring): void {
  const inbox = program
    .command('inbox')
    .description(
      'read and repair the inbox deliveries table (--inbox-table): list, show, retry, dead',
    );
  addCommands(inbox, wiring, rowCommands(INBOX_ROWS));
  addRedeliverCommand(program, wiring);
  const outbox = program
    .command('outbox')
    .description(
      'read and repair the outbox messages table (--outbox-table): list, show, retry, dead',
    );
  addCommands(outbox, wiring, rowCommands(OUTBOX_ROWS));
}

/** The filter of one provider (`--provider`) or sender (`--sender`), as the commands read it. */
interface Filtered {
  readonly provider?: string;
  readonly sender?: string;
}

/** `--provider <name>` or `--sender <name>`, described as `what` says. */
const filterOption = (command: Command, rows: RowTable, what = '') =>
  command.option(`--${rows.provider} <name>`, `${what}only this ${rows.provider}`);

/** The options with the sender filter read as the provider's: the commands filter one column. */
function filtered<O extends Filtered>({ sender, ...options }: O): Omit<O, 'sender'> {
  return (sender === undefined ? options : { ...options, provider: sender }) as Omit<O, 'sender'>;
}

function addList(command: Command, wiring: Wiring, rows: RowTable): void {
  command.addOption(
    new Option('--status <status>', `only ${rows.many} in this status`).choices(
      Object.values(DeliveryStatus),
    ),
  );
  filterOption(command, rows).option(
    '--since <duration>',
    `only ${rows.many} ${rows.stored} within this window`,
    parseDuration,
  );
  runs(limitOption(command), wiring, (context, options: InboxListCommandOptions & Filtered) =>
    inboxList(context, filtered(options), rows),
  );
}

function addShow(command: Command, { context, done }: Wiring, rows: RowTable): void {
  command
    .argument(`<${rows.provider}>`, rows.help.provider)
    .argument(`<${rows.id}>`, rows.help.id)
    .option(`--${rows.body}`, `print the ${rows.body} bytes too (they may hold personal data)`)
    .option('--json', 'print JSON')
    .action(
      async (
        provider: string,
        externalId: string,
        options: { body?: boolean; payload?: boolean; json?: boolean },
        self: Command,
      ) =>
        done(
          await inboxShow(
            context(self, options.json),
            { provider, externalId },
            { body: options[rows.body] === true, json: options.json === true },
            rows,
          ),
        ),
    );
}

function addRetry(command: Command, wiring: Wiring, rows: RowTable): void {
  command
    .argument(`[${rows.provider}]`, `the ${rows.provider}`)
    .argument(`[${rows.id}]`, rows.help.id)
    .option(
      '--all-dead',
      `retry every dead ${rows.one} (with --${rows.provider}, --since) instead of one`,
    );
  filterOption(command, rows, 'with --all-dead: ')
    .option(
      '--since <duration>',
      `with --all-dead: only ${rows.many} dead within this window`,
      parseDuration,
    )
    .option('--dry-run', 'with --all-dead: list what would be retried, change nothing')
    .option('--json', 'print JSON')
    .action(retryAction(wiring, rows));
}

type RetryOptions = InboxRetryCommandOptions &
  InboxRetryAllCommandOptions &
  Filtered & { allDead?: boolean };

/** `retry`'s action: one row by its key, or every dead one with `--all-dead`. */
function retryAction({ context, done }: Wiring, rows: RowTable) {
  const name = `${rows.group} retry`;
  return async (
    provider: string | undefined,
    externalId: string | undefined,
    given: RetryOptions,
    command: Command,
  ) => {
    const options = filtered(given);
    const bulk = options.allDead === true;
    const filters = (['provider', 'since', 'dryRun'] as const).filter(
      (name) => options[name] !== undefined,
    );
    if (bulk && provider !== undefined)
      throw new CliError(
        ExitCode.USAGE,
        `${name} --all-dead takes no <${rows.provider}> <${rows.id}>: filter with --${rows.provider}.`,
      );
    if (!bulk && (provider === undefined || externalId === undefined))
      throw new CliError(
        ExitCode.USAGE,
        `${name} needs <${rows.provider}> <${rows.id}>, or --all-dead.`,
      );
    if (!bulk && filters.length > 0)
      throw new CliError(
        ExitCode.USAGE,
        `--${rows.provider}, --since and --dry-run go with --all-dead.`,
      );
    const ctx: Context = context(command, options.json);
    done(
      bulk
        ? await inboxRetryAll(ctx, options, rows)
        : await inboxRetry(ctx, { provider: provider!, externalId: externalId! }, options, rows),
    );
  };
}

function addDead(command: Command, wiring: Wiring, rows: RowTable): void {
  filterOption(command, rows);
  limitOption(command).option(
    '--fail-on-dead',
    `exit with ${ExitCode.DEAD} when a ${rows.one} is dead (for cron)`,
  );
  runs(command, wiring, (context, options: InboxDeadCommandOptions & Filtered) =>
    inboxDead(context, filtered(options), rows),
  );
}
