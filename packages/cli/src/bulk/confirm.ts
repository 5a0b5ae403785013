/**
 * @module The confirmation a bulk write asks for: a question on stderr and one line read from a
 * terminal's stdin; never asked when stdin is not a terminal (a script must say `--yes`).
 */
import { CliError, ExitCode } from '../exit-codes';
import type { CliIo, Printer } from '../output';

/**
 * Refuses before anything is read when the command would have to ask and cannot: stdin is not a
 * terminal and `--yes` was not given.
 * @throws {CliError} `USAGE`, saying to pass `--yes` (or to look first with `--dry-run`).
 */
export function needsConfirmation(io: CliIo, what: string): void {
  if (io.stdin?.isTTY === true) return;
  throw new CliError(
    ExitCode.USAGE,
    `${what} asks for confirmation on a terminal, and stdin is not one: pass --yes to go ahead ` +
      'without asking (see first what would change with --dry-run).',
  );
}

/** The first line read from `io.stdin`, or `''` when it ends first. */
async function firstLine(io: CliIo): Promise<string> {
  const stdin = io.stdin;
  if (!stdin) return '';
  stdin.setEncoding?.('utf8');
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    const end = text.indexOf('\n');
    if (end >= 0) return text.slice(0, end);
  }
  return text;
}

/** Asks `question` on stderr; resolves `true` only for an answer of `y` or `yes`. */
export async function confirm(io: CliIo, err: Printer, question: string): Promise<boolean> {
  err.stream.write(`${question} [y/N] `);
  const answer = (await firstLine(io)).trim().toLowerCase();
  return answer === 'y' || answer === 'yes';
}
