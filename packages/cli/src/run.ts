/** @module The command line: the program with its commands, run once over `argv`, and the exit code. */
import { CommanderError } from 'commander';
import { CliError, ExitCode } from './exit-codes';
import { addInboxCommands } from './inbox-commands';
import { type CliIo, escapeControls } from './output';
import { contextFor, createProgram } from './program';
import { addReceiptCommands } from './receipt-commands';
import { addSendCommand } from './send/command';
import type { Wiring } from './wiring';

/**
 * Runs the `webhook-idempotency` command with `argv` (the arguments after the program name) and
 * resolves with its exit code (see {@link ExitCode}); never calls `process.exit`. What bin.ts runs.
 *
 * @example
 * const code = await run(['status', '--fail-on-stuck'], { stdout, stderr, env: process.env });
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const wiring: Wiring = {
    context: contextFor(io),
    done: (code) => {
      exitCode = code;
    },
  };
  const program = createProgram(io);
  addReceiptCommands(program, wiring);
  addInboxCommands(program, wiring);
  addSendCommand(program, io, wiring.done);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return failed(io, error);
  }
}

/**
 * The exit code of a run that threw: commander's help and version are `OK` and its usage errors
 * `USAGE` (it has written them); anything else is said on stderr, escaped, as one line.
 */
function failed(io: CliIo, error: unknown): number {
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

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
  };
}
