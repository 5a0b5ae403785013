/** @module The receipts commands: `status`, `list`, `show`, `release`, `purge`, `migrate`, added to the program. */
import { ReceiptStatus } from '@webhook-idempotency/core';
import type { SqlDialect } from '@webhook-idempotency/sql';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { list } from './commands/list';
import { type MigrateCommandOptions, migrate } from './commands/migrate';
import { purge } from './commands/purge';
import { release } from './commands/release';
import { show } from './commands/show';
import { status } from './commands/status';
import { parseDuration, parseWhole } from './durations';
import { ExitCode } from './exit-codes';
import { addCommands, type CommandRow, limitOption, runs, runsOnKey, type Wiring } from './wiring';

const RECEIPT_STATUSES: readonly ReceiptStatus[] = Object.values(ReceiptStatus);

function parseStatuses(value: string, previous: ReceiptStatus[] = []): ReceiptStatus[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !RECEIPT_STATUSES.includes(name as ReceiptStatus));
  if (unknown.length || names.length === 0)
    throw new InvalidArgumentError(
      `unknown status ${JSON.stringify(unknown[0] ?? value)}: use ${RECEIPT_STATUSES.join(', ')} (for stuck claims: --stuck).`,
    );
  return [...previous, ...(names as ReceiptStatus[])];
}

/** The receipts table's commands, in the order the help lists them. */
const RECEIPT_COMMANDS: readonly CommandRow[] = [
  [
    'status',
    'counts per provider and status, stuck claims, handler times, failure share, ignored events',
    addStatus,
  ],
  ['list', 'list receipts, newest claim first (oldest first with --stuck)', addList],
  ['show', 'one receipt, with its stored answer', addShow],
  [
    'release',
    "mark a stuck processing receipt failed, so the provider's next delivery runs the handler again",
    addRelease,
  ],
  [
    'purge',
    'delete completed and failed receipts past a retention, in chunks; never processing ones',
    addPurge,
  ],
  ['migrate', 'create the receipts table and its indexes unless they exist', addMigrate],
];

/** Adds the receipts table's commands to `program`. */
export function addReceiptCommands(program: Command, wiring: Wiring): void {
  addCommands(program, wiring, RECEIPT_COMMANDS);
}

function addStatus(command: Command, wiring: Wiring): void {
  command
    .addOption(
      new Option(
        '--since <duration>',
        'window for finished receipts, handler times and ignored events (whole hours)',
      )
        .argParser(parseDuration)
        .default(parseDuration('24h'), '24h'),
    )
    .option(
      '--fail-on-stuck',
      `exit with ${ExitCode.STUCK} when a receipt is stuck in processing (for cron)`,
    );
  runs(command, wiring, status);
}

function addList(command: Command, wiring: Wiring): void {
  command
    .option(
      '--status <statuses>',
      'processing, completed or failed (comma-separated, repeatable)',
      parseStatuses,
    )
    .option('--provider <name>', 'only this provider')
    .option('--stuck', 'only processing receipts older than --stale-after')
    .option(
      '--since <duration>',
      'only receipts claimed or finished within this window',
      parseDuration,
    );
  runs(limitOption(command), wiring, list);
}

function addShow(command: Command, wiring: Wiring): void {
  runsOnKey(command, wiring, 'the provider, as the guard stores it (e.g. stripe)', show);
}

function addRelease(command: Command, wiring: Wiring): void {
  command.option(
    '--force',
    'release a claim younger than --stale-after too (its worker may be alive)',
  );
  runsOnKey(command, wiring, 'the provider', release);
}

function addPurge(command: Command, wiring: Wiring): void {
  command
    .requiredOption(
      '--retention-days <days>',
      'keep receipts finished within this many days (0: delete every finished receipt)',
      parseWhole(0),
    )
    .option('--provider <name>', 'only this provider')
    .option('--chunk-size <n>', 'rows per DELETE (default: 1000)', parseWhole(1))
    // The flag's name before the glossary's "chunk", kept working, out of the help.
    .addOption(new Option('--batch-size <n>').argParser(parseWhole(1)).hideHelp());
  runs(command, wiring, purge);
}

/** `migrate`'s context: with `--print` and no `--url`, the DDL's `--dialect` is its target. */
function addMigrate(command: Command, { context, done }: Wiring): void {
  command
    .option('--inbox', 'create the inbox deliveries table (--inbox-table) too')
    .option('--outbox', 'create the outbox messages table (--outbox-table) too')
    .option('--print', 'print the DDL instead of running it (no connection needed)')
    .addOption(
      new Option('--dialect <dialect>', 'the DDL dialect for --print without --url').choices([
        'postgres',
        'mysql',
        'sqlite',
      ]),
    )
    .option('--json', 'print JSON')
    .action(async (options: MigrateCommandOptions & { dialect?: SqlDialect }, self: Command) =>
      done(
        await migrate(
          context(self, options.json, options.print ? options.dialect : undefined),
          options,
        ),
      ),
    );
}
