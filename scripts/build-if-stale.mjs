#!/usr/bin/env node
// A package's `prepack`: builds it with tsdown unless its dist is newer than every input (its
// src/, package.json and tsdown config, and the shared build config). `pnpm publish --dry-run`,
// the packed-tarball consumers and `pnpm pack` then build each package once per checkout state,
// not once per caller. `pnpm build` always rebuilds. Callers packing the same package at once (two
// test files in parallel) take turns through a lock file (scripts/lock.mjs), so a stale dist is
// built once and never packed half-written; a lock left by a build that was killed is taken over
// at once.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { withLock } from './lock.mjs';

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

// Inside node_modules/, so the tarball does not carry it; the name of the folder earlier versions
// of this script made (lock.mjs takes such a folder over).
const lock = join(dir, 'node_modules', '.wi-building');

if (stale()) {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  withLock(lock, `the build of ${relative(root, dir) || dir}`, () => {
    // Another caller may have built it while this one waited.
    if (!stale()) return;
    execFileSync(join(root, 'node_modules', '.bin', 'tsdown'), [], { cwd: dir, stdio: 'inherit' });
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
  });
}
