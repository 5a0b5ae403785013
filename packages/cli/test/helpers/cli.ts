/**
 * Runs the `webhook-idempotency` command: argv in, stdout, stderr and exit code out.
 *
 * By default in this process, through `run(argv, io)` (what src/bin.ts calls) with streams that
 * collect the output and the given environment: the command's whole behaviour, without a Node
 * start and a module load per call (the database suites make hundreds of calls).
 *
 * As a child process of the real entry point when the test is about the process itself: `process:
 * true`, a terminal (`tty`), a working directory (`cwd`), or no drivers (`drivers: false`).
 * src/bin.ts is then bundled once per test file with esbuild (the drivers left out, as in the
 * published build), which starts several times faster than compiling TypeScript on every run.
 * The bundle sits under this package's node_modules, so that it finds the drivers there as an
 * installed package would; with `drivers: false` it sits in a temporary folder that has none.
 * The published bin itself runs from its tarball in tests/consumers/packed-tarballs.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import { run } from '../../src/run';
import { escapeControls } from '../../src/output';

const PACKAGE = join(__dirname, '..', '..');
const bundles = new Map<boolean, string>();

// Registered in each test file that imports this helper: its bundles go with it.
afterAll(() => {
  for (const bundle of bundles.values()) rmSync(dirname(bundle), { recursive: true, force: true });
});

/** The bundled entry point, built on first use. */
function entryPoint(drivers: boolean): string {
  let bundle = bundles.get(drivers);
  if (!bundle) {
    const parent = drivers
      ? join(PACKAGE, 'node_modules', '.cache')
      : (process.env.WI_TMP ?? tmpdir());
    mkdirSync(parent, { recursive: true });
    bundle = join(mkdtempSync(join(parent, 'cli-bin-')), 'bin.cjs');
    bundles.set(drivers, bundle);
    buildSync({
      entryPoints: [join(PACKAGE, 'src', 'bin.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: bundle,
      external: ['pg', 'pg-native', 'mysql2', 'better-sqlite3'],
      logLevel: 'error',
    });
  }
  return bundle;
}

/** What one run printed and how it exited. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `value` as one word of a POSIX shell. */
const shellWord = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * Runs the command with `args`; `env` is added to a clean environment (no DATABASE_URL, no
 * NO_COLOR). With `tty`, its output goes to a real terminal of that many columns (a
 * pseudo-terminal made by util-linux `script`), whose output is read back with `\r\n` as `\n`;
 * stderr then arrives in stdout, as a terminal shows both.
 */
export function cli(
  args: readonly string[],
  {
    env = {},
    cwd,
    drivers = true,
    tty,
    input,
    process: child = false,
  }: {
    env?: Record<string, string>;
    cwd?: string;
    drivers?: boolean;
    tty?: { readonly columns: number };
    /** Typed on stdin (on the terminal with `tty`), as a user answers a question. */
    input?: string;
    /** Run the real entry point in a child process even when nothing else asks for one. */
    process?: boolean;
  } = {},
): Promise<CliRun> {
  const { DATABASE_URL: _url, NO_COLOR: _noColor, ...base } = process.env;
  if (!child && !tty && cwd === undefined && drivers)
    return inProcess(args, { ...base, ...env }, input);
  const command = [process.execPath, entryPoint(drivers), ...args];
  const [file, argv] = tty
    ? [
        'script',
        [
          '--quiet',
          '--return',
          '--command',
          `stty cols ${tty.columns} rows 50; exec ${command.map(shellWord).join(' ')}`,
          '/dev/null',
        ],
      ]
    : [command[0]!, command.slice(1)];
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      argv,
      { env: { ...base, ...env }, cwd: cwd ?? tmpdir(), timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        if (typeof code !== 'number') return reject(error);
        resolve(
          tty
            ? { code, stdout: stdout.replaceAll('\r\n', '\n'), stderr }
            : { code, stdout, stderr },
        );
      },
    );
    if (input !== undefined) child.stdin?.write(input);
  });
}

/** Piped stdin as a child process gets it: not a terminal, `input` then its end. */
async function* piped(input: string | undefined): AsyncGenerator<string> {
  if (input !== undefined) yield input;
}

/**
 * `run(args)` here, as src/bin.ts runs it: output collected from streams that are not terminals
 * (as a child's pipes), a rejection printed and exit code 1.
 */
async function inProcess(
  args: readonly string[],
  env: Record<string, string | undefined>,
  input: string | undefined,
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    stdin: piped(input),
  };
  const code = await run(args, io).catch((error: unknown) => {
    err.push(`webhook-idempotency: ${escapeControls(String(error))}\n`);
    return 1;
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
