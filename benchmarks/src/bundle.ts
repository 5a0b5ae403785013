/**
 * @module Ahead-of-time bundles of the benchmark programs, as an application's build would ship
 * our packages: run from sources through a require hook, every cross-module reference would be a
 * getter call counted against the guard. Written to benchmarks/dist (ignored by git), so that the
 * external native module (better-sqlite3) resolves from this package's node_modules.
 */
import { existsSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const TASKSET_EXISTS = existsSync('/usr/bin/taskset');
const built = new Map<string, string>();
const PACKAGES = join(__dirname, '..', '..', 'packages');
const PACKAGE_MODULES = readdirSync(PACKAGES)
  .map((name) => join(PACKAGES, name, 'node_modules'))
  .filter((dir) => existsSync(dir));

/** How {@link bundle} builds a variant of a program. */
export interface BundleOptions {
  /** The bundle's name in benchmarks/dist (without `.js`). Defaults to the program's name. */
  readonly out?: string;
  /**
   * Import paths replaced by absolute file paths (esbuild `alias`): our packages taken from
   * another tree. Packages it does not replace resolve from this package's node_modules.
   */
  readonly alias?: Readonly<Record<string, string>>;
}

/** Bundles `src/<name>.ts` once per run and variant (by `out`); returns the bundle's path. */
export function bundle(name: string, options: BundleOptions = {}): string {
  const outName = options.out ?? name;
  let out = built.get(outName);
  if (out) return out;
  out = join(__dirname, '..', 'dist', `${outName}.js`);
  buildSync({
    entryPoints: [join(__dirname, `${name}.ts`)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    outfile: out,
    // pg's optional native binding is not installed; better-sqlite3 is native.
    external: ['better-sqlite3', 'pg-native'],
    ...(options.alias && {
      alias: { ...options.alias },
      // Sources outside this repository's tree find no node_modules above them: this package's
      // first (the frameworks and drivers the programs use), then each of our packages' own
      // (their dependencies, such as fastify-plugin).
      nodePaths: [join(__dirname, '..', 'node_modules'), ...PACKAGE_MODULES],
    }),
    logLevel: 'error',
  });
  built.set(outName, out);
  return out;
}

/** `node <args>` pinned to `core` where taskset exists. */
export function pinned(core: number, args: string[]): [string, string[]] {
  return TASKSET_EXISTS
    ? ['/usr/bin/taskset', ['-c', String(core), process.execPath, ...args]]
    : [process.execPath, args];
}

/** Every core of the machine as a taskset list (`0-1` on two cores). */
export const EVERY_CORE = `0-${cpus().length - 1}`;

/** `node <args>` free to run on every core, also when this process is pinned to one. */
export function unpinned(args: string[]): [string, string[]] {
  return TASKSET_EXISTS
    ? ['/usr/bin/taskset', ['-c', EVERY_CORE, process.execPath, ...args]]
    : [process.execPath, args];
}
