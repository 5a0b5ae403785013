/**
 * @module Ahead-of-time bundles of the benchmark programs, as an application's build would ship
 * our packages: run from sources through a require hook, every cross-module reference would be a
 * getter call counted against the guard. Written to benchmarks/dist (ignored by git), so that the
 * external native module (better-sqlite3) resolves from this package's node_modules.
 */
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const TASKSET_EXISTS = existsSync('/usr/bin/taskset');
const built = new Map<string, string>();

/** Bundles `src/<name>.ts` once per run; returns the bundle's path. */
export function bundle(name: string): string {
  let out = built.get(name);
  if (out) return out;
  out = join(__dirname, '..', 'dist', `${name}.js`);
  buildSync({
    entryPoints: [join(__dirname, `${name}.ts`)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    outfile: out,
    // pg's optional native binding is not installed; better-sqlite3 is native.
    external: ['better-sqlite3', 'pg-native'],
    logLevel: 'error',
  });
  built.set(name, out);
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
