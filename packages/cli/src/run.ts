/** @module The command line: commander's program, its commands and options, and the exit code. */
import { ReceiptStatus } from '@webhook-idempotency/core';
import { DEFAULT_INBOX_TABLE, DEFAULT_TABLE, type SqlDialect } from '@webhook-idempotency/sql';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { version } from '../package.json';
import { list } from './commands/list';
import { migrate } from './commands/migrate';
import { purge } from './commands/purge';
import { release } from './commands/release';
import { show } from './commands/show';
import { status } from './commands/status';
import { parseTarget, type Target } from './connect';
import { parseDuration, parseWhole } from './durations';
import { addInboxCommands } from './inbox-commands';
import { addSendCommand } from './send/command';
import { CliError, ExitCode } from './exit-codes';
import { type CliIo, colorFor, escapeControls, Printer } from './output';
import type { Context } from './session';

const DEFAULT_STALE = '5m';
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

interface GlobalOptions {
  readonly url?: string;
  readonly table: string;
  readonly inboxTable: string;
  readonly staleAfter: number;
}

/**
 * Runs the `webhook-idempotency` command with `argv` (the arguments after the program name) and
 * resolves with its exit code (see {@link ExitCode}); never calls `process.exit`. What bin.ts runs.
 *
 * @example
 * const code = await run(['status', '--fail-on-stuck'], { stdout, stderr, env: process.env });
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const context = (command: Command, json = false, dialect?: SqlDialect): Context => {
    const globals = command.optsWithGlobals() as GlobalOptions;
    const url = globals.url ?? io.env.DATABASE_URL;
    const target: Target =
      !url && dialect ? { dialect, location: '', display: dialect, secret: '' } : parseTarget(url);
    return {
      io,
      out: new Printer(io.stdout, !json && colorFor(io.stdout, io.env), !json),
      err: new Printer(io.stderr, colorFor(io.stderr, io.env)),
      target,
      table: globals.table,
      inboxTable: globals.inboxTable,
      staleAfterMs: globals.staleAfter,
    };
  };
  const done = (code: number) => {
    exitCode = code;
  };

  const program = new Command('webhook-idempotency')
    .description(
      'Read and repair the webhook-idempotency receipts table (status, stuck claims, release, purge, migrate) and the inbox deliveries table (inbox list|show|retry|dead, redeliver); send a signed sample delivery to your endpoint (send).',
    )
    .version(version, '-v, --version')
    .exitOverride()
    .configureOutput({
      // Usage errors repeat what was typed: escaped like everything else that is not --json.
      writeOut: (text) => io.stdout.write(escapeControls(text)),
      writeErr: (text) => io.stderr.write(escapeControls(text)),
      getOutHelpWidth: () => io.stdout.columns ?? 80,
      getErrHelpWidth: () => io.stderr.columns ?? 80,
    })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .addOption(
      new Option(
        '--url <url>',
        'database: postgres://…, mysql://…, mariadb://…, sqlite:file.db (default: $DATABASE_URL)',
      ),
    )
    .option('--table <name>', 'the receipts table', DEFAULT_TABLE)
    .option('--inbox-table <name>', 'the inbox deliveries table', DEFAULT_INBOX_TABLE)
    .addOption(
      new Option(
        '--stale-after <duration>',
        "a processing claim older than this is stuck (the guard's staleAfterSeconds)",
      )
        .argParser(parseDuration)
        .default(parseDuration(DEFAULT_STALE), DEFAULT_STALE),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 error, 2 usage, 3 cannot connect, 4 table missing,\n5 not found, 6 refused (release, inbox retry, redeliver: nothing changed),\n7 stuck receipts (status --fail-on-stuck),\n8 dead deliveries (inbox dead --fail-on-dead),\n9 some left as they are (inbox retry --all-dead, redeliver by query:\n  they changed meanwhile).\n',
    );

  program
    .command('status')
    .description('counts per provider and status, stuck claims, handler times, failure share')
    .addOption(
      new Option('--since <duration>', 'window for finished receipts and handler times')
        .argParser(parseDuration)
        .default(parseDuration('24h'), '24h'),
    )
    .option(
      '--fail-on-stuck',
      `exit with ${ExitCode.STUCK} when a receipt is stuck in processing (for cron)`,
    )
    .option('--json', 'print JSON')
    .action(async (options, command: Command) =>
      done(await status(context(command, options.json), options)),
    );

  program
    .command('list')
    .description('list receipts, newest claim first (oldest first with --stuck)')
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
    )
    .option('--limit <n>', 'at most this many (up to 10000)', parseWhole(1, 10_000), 50)
    .option('--json', 'print JSON')
    .action(async (options, command: Command) =>
      done(await list(context(command, options.json), options)),
    );

  program
    .command('show')
    .description('one receipt, with its stored answer')
    .argument('<provider>', 'the provider, as the guard stores it (e.g. stripe)')
    .argument('<id>', "the provider's event or delivery id")
    .option('--json', 'print JSON')
    .action(async (provider: string, externalId: string, options, command: Command) =>
      done(await show(context(command, options.json), { provider, externalId }, options)),
    );

  program
    .command('release')
    .description(
      "mark a stuck processing receipt failed, so the provider's next delivery runs the handler again",
    )
    .argument('<provider>', 'the provider')
    .argument('<id>', "the provider's event or delivery id")
    .option('--force', 'release a claim younger than --stale-after too (its worker may be alive)')
    .option('--json', 'print JSON')
    .action(async (provider: string, externalId: string, options, command: Command) =>
      done(await release(context(command, options.json), { provider, externalId }, options)),
    );

  program
    .command('purge')
    .description(
      'delete completed and failed receipts past a retention, in chunks; never processing ones',
    )
    .requiredOption(
      '--retention-days <days>',
      'keep receipts finished within this many days (0: delete every finished receipt)',
      parseWhole(0),
    )
    .option('--provider <name>', 'only this provider')
    .option('--chunk-size <n>', 'rows per DELETE (default: 1000)', parseWhole(1))
    // The flag's name before the glossary's "chunk", kept working, out of the help.
    .addOption(new Option('--batch-size <n>').argParser(parseWhole(1)).hideHelp())
    .option('--json', 'print JSON')
    .action(async (options, command: Command) =>
      done(await purge(context(command, options.json), options)),
    );

  program
    .command('migrate')
    .description('create the receipts table and its indexes unless they exist')
    .option('--inbox', 'create the inbox deliveries table (--inbox-table) too')
    .option('--print', 'print the DDL instead of running it (no connection needed)')
    .addOption(
      new Option('--dialect <dialect>', 'the DDL dialect for --print without --url').choices([
        'postgres',
        'mysql',
        'sqlite',
      ]),
    )
    .option('--json', 'print JSON')
    .action(async (options, command: Command) =>
      done(
        await migrate(
          context(command, options.json, options.print ? options.dialect : undefined),
          options,
        ),
      ),
    );

  addInboxCommands(program, context, done);
  addSendCommand(program, io, done);

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return ExitCode.OK;
      return ExitCode.USAGE;
    }
    const cliError =
      error instanceof CliError
        ? error
        : new CliError(ExitCode.ERROR, error instanceof Error ? error.message : String(error));
    io.stderr.write(`webhook-idempotency: ${escapeControls(cliError.message)}\n`);
    return cliError.exitCode;
  }
}

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
  };
}
