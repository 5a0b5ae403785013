#!/usr/bin/env node
// A package's `prepack`: builds it with tsdown unless its dist is newer than every input (its
// src/, package.json and tsdown config, and the shared build config). `pnpm publish --dry-run`,
// the packed-tarball consumers and `pnpm pack` then build each package once per checkout state,
// not once per caller. `pnpm build` always rebuilds.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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
const stale =
  !existsSync(join(dir, 'dist')) ||
  !existsSync(stamp) ||
  Math.max(...inputs.map(newest)) >= statSync(stamp).mtimeMs;
if (stale) {
  execFileSync(join(root, 'node_modules', '.bin', 'tsdown'), [], { cwd: dir, stdio: 'inherit' });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
