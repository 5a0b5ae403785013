/**
 * @module How a command's registration reaches its run: the {@link Wiring} every `add…Commands`
 * gets, and the parts most commands share (`--json` with an action that hands the run's exit code
 * on, the `<provider> <id>` key, `--limit`).
 */
import type { SqlDialect } from '@webhook-idempotency/sql';
import type { Command } from 'commander';
import { parseWhole } from './durations';
import type { Context, EventKey } from './session';

/**
 * Builds a command's {@link Context} from its global options; `json` turns colour off on stdout;
 * `dialect` stands in for a missing `--url` (`migrate --print`).
 */
export type ContextOf = (command: Command, json?: boolean, dialect?: SqlDialect) => Context;

/** What a command's registration needs: its run's context, and where its exit code goes. */
export interface Wiring {
  readonly context: ContextOf;
  readonly done: (code: number) => void;
}

/** Options every command with output has. */
interface JsonOption {
  readonly json?: boolean;
}

/** Adds `--json` and the action: `run` with the command's context and options. */
export function runs<O extends JsonOption>(
  command: Command,
  { context, done }: Wiring,
  run: (context: Context, options: O) => Promise<number>,
): Command {
  return command
    .option('--json', 'print JSON')
    .action(async (options: O, self: Command) =>
      done(await run(context(self, options.json), options)),
    );
}

/**
 * Adds `<provider> <id>` (the provider described as `provider`), `--json` and the action: `run`
 * with the command's context, the key and the options.
 */
export function runsOnKey<O extends JsonOption>(
  command: Command,
  { context, done }: Wiring,
  provider: string,
  run: (context: Context, key: EventKey, options: O) => Promise<number>,
): Command {
  return command
    .argument('<provider>', provider)
    .argument('<id>', "the provider's event or delivery id")
    .option('--json', 'print JSON')
    .action(async (provider: string, externalId: string, options: O, self: Command) =>
      done(await run(context(self, options.json), { provider, externalId }, options)),
    );
}

/** Adds `--limit <n>` (default 50) to a listing. */
export const limitOption = (command: Command): Command =>
  command.option('--limit <n>', 'at most this many (up to 10000)', parseWhole(1, 10_000), 50);

/**
 * One row of a command table: the command's name and its description (its parent's help lists
 * both), and what adds its arguments, options and action.
 */
export type CommandRow = readonly [
  name: string,
  description: string,
  add: (command: Command, wiring: Wiring) => void,
];

/** Adds the commands of `rows` to `parent`, in their order (the order its help lists them). */
export function addCommands(parent: Command, wiring: Wiring, rows: readonly CommandRow[]): void {
  for (const [name, description, add] of rows)
    add(parent.command(name).description(description), wiring);
}
