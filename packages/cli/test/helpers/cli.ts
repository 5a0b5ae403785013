/**
 * Runs the real `webhook-idempotency` entry point as a child process: argv in, stdout, stderr and
 * exit code out. src/bin.ts is bundled once per test file with esbuild (the drivers left out, as
 * in the published build), which starts several times faster than compiling TypeScript on every
 * run. The bundle sits under this package's node_modules, so that it finds the drivers there as an
 * installed package would; with `drivers: false` it sits in a temporary folder that has none.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';

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
  }: {
    env?: Record<string, string>;
    cwd?: string;
    drivers?: boolean;
    tty?: { readonly columns: number };
    /** Typed on stdin (on the terminal with `tty`), as a user answers a question. */
    input?: string;
  } = {},
): Promise<CliRun> {
  const { DATABASE_URL: _url, NO_COLOR: _noColor, ...base } = process.env;
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
