#!/usr/bin/env node
// A package's `prepack`: builds it with tsdown unless its dist is newer than every input (its
// src/, package.json and tsdown config, and the shared build config). `pnpm publish --dry-run`,
// the packed-tarball consumers and `pnpm pack` then build each package once per checkout state,
// not once per caller. `pnpm build` always rebuilds. Callers packing the same package at once (two
// test files in parallel) take turns through a lock folder, so a stale dist is built once and
// never packed half-written.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = process.cwd();
// Outside dist/, so the tarball does not carry it.
const stamp = join(dir, 'node_modules', '.wi-built');

/** The newest modification time under `path` (a file or a folder), in ms. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

const inputs = [
  join(dir, 'src'),
  join(dir, 'package.json'),
  join(dir, 'tsdown.config.ts'),
  join(root, 'tsdown.base.ts'),
  join(root, 'tsconfig.build.json'),
  join(root, 'tsconfig.base.json'),
];
const stale = () =>
  !existsSync(join(dir, 'dist')) ||
  !existsSync(stamp) ||
  Math.max(...inputs.map(newest)) >= statSync(stamp).mtimeMs;

/** A build takes well under this; a lock older than it was left by a killed build. */
const LOCK_EXPIRES_MS = 10 * 60_000;
const lock = join(dir, 'node_modules', '.wi-building');

/** Takes the package's build lock, waiting at most LOCK_EXPIRES_MS for another caller's build. */
function acquire() {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  const deadline = Date.now() + LOCK_EXPIRES_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const age = existsSync(lock) ? Date.now() - statSync(lock).mtimeMs : 0;
    if (age > LOCK_EXPIRES_MS) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`${lock} is still held after 10 minutes`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

if (stale()) {
  acquire();
  try {
    // Another caller may have built it while this one waited.
    if (stale()) {
      execFileSync(join(root, 'node_modules', '.bin', 'tsdown'), [], {
        cwd: dir,
        stdio: 'inherit',
      });
      writeFileSync(stamp, `${new Date().toISOString()}\n`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
