/**
 * @module The root command: its global options (where the tables are), its help and exit-code
 * text, where commander writes; and each command's {@link Context} built from those options.
 */
import { DEFAULT_INBOX_TABLE, DEFAULT_TABLE } from '@webhook-idempotency/sql';
import { Command, Option } from 'commander';
import { version } from '../package.json';
import { parseTarget, type Target } from './connect';
import { parseDuration } from './durations';
import { type CliIo, colorFor, escapeControls, Printer } from './output';
import { DEFAULT_OUTBOX_TABLE } from './session';
import type { ContextOf } from './wiring';

const DEFAULT_STALE = '5m';

const EXIT_CODES_HELP =
  '\nExit codes: 0 ok, 1 error, 2 usage, 3 cannot connect, 4 table missing,\n5 not found, 6 refused (release, inbox retry, outbox retry, redeliver:\n  nothing changed),\n7 stuck receipts (status --fail-on-stuck),\n8 dead deliveries or messages (inbox dead, outbox dead --fail-on-dead),\n9 some left as they are (inbox retry --all-dead, outbox retry --all-dead,\n  redeliver by query: they changed meanwhile).\n';

interface GlobalOptions {
  readonly url?: string;
  readonly table: string;
  readonly inboxTable: string;
  readonly outboxTable: string;
  readonly staleAfter: number;
}

/** `webhook-idempotency` with its global options and no commands yet; it throws instead of exiting. */
export function createProgram(io: CliIo): Command {
  return new Command('webhook-idempotency')
    .description(
      'Read and repair the webhook-idempotency receipts table (status, stuck claims, release, purge, migrate), the inbox deliveries table (inbox list|show|retry|dead, redeliver) and the outbox messages table (outbox list|show|retry|dead); send a signed sample delivery to your endpoint (send).',
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
    .option('--outbox-table <name>', 'the outbox messages table', DEFAULT_OUTBOX_TABLE)
    .addOption(
      new Option(
        '--stale-after <duration>',
        "a processing claim older than this is stuck (the guard's staleAfterSeconds)",
      )
        .argParser(parseDuration)
        .default(parseDuration(DEFAULT_STALE), DEFAULT_STALE),
    )
    .addHelpText('after', EXIT_CODES_HELP);
}

/** Builds each command's {@link Context} from the global options, `io` and `$DATABASE_URL`. */
export function contextFor(io: CliIo): ContextOf {
  return (command, json = false, dialect) => {
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
      outboxTable: globals.outboxTable,
      staleAfterMs: globals.staleAfter,
    };
  };
}
