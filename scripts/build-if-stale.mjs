#!/usr/bin/env node
// A package's `prepack`: builds it with tsdown unless its dist is newer than every input (its
// src/, package.json and tsdown config, and the shared build config). `pnpm publish --dry-run`,
// the packed-tarball consumers and `pnpm pack` then build each package once per checkout state,
// not once per caller. `pnpm build` always rebuilds. Callers packing the same package at once (two
// test files in parallel) take turns through a lock file (scripts/lock.mjs), so a stale dist is
// built once and never packed half-written; a lock left by a build that was killed is taken over
// at once.
// - `node scripts/build-if-stale.mjs` (a package's prepack): the package in the current folder.
// - `node scripts/build-if-stale.mjs --all`: every published package, the stale ones in one
//   tsdown run of the workspace (`tsdown -W`). One process loads tsdown, rolldown and TypeScript
//   once for all of them: about half the CPU of one tsdown process per package, with the same
//   output. `pnpm pack:all` and `.ci/run` build this way, so each package's own prepack then
//   finds it current.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withLock } from './lock.mjs';

const root = resolve(import.meta.dirname, '..');
const tsdown = join(root, 'node_modules', '.bin', 'tsdown');

/** The newest modification time under `path` (a file or a folder), in ms. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

/** Outside dist/, so the tarball does not carry it: when `dir` was last built. */
const stampOf = (dir) => join(dir, 'node_modules', '.wi-built');
/**
 * Inside node_modules/, so the tarball does not carry it; the name of the folder earlier versions
 * of this script made (lock.mjs takes such a folder over).
 */
const lockOf = (dir) => join(dir, 'node_modules', '.wi-building');

/** Whether the package in `dir` has no build, or one older than any of its inputs. */
function stale(dir) {
  const stamp = stampOf(dir);
  if (!existsSync(join(dir, 'dist')) || !existsSync(stamp)) return true;
  const inputs = [
    join(dir, 'src'),
    join(dir, 'package.json'),
    join(dir, 'tsdown.config.ts'),
    join(root, 'tsdown.base.ts'),
    join(root, 'tsconfig.build.json'),
    join(root, 'tsconfig.base.json'),
  ];
  return Math.max(...inputs.map(newest)) >= statSync(stamp).mtimeMs;
}

/** Runs `work` holding the lock of every folder in `dirs`, taken in the order given. */
function holding(dirs, work) {
  if (dirs.length === 0) return work();
  const [first, ...rest] = dirs;
  mkdirSync(join(first, 'node_modules'), { recursive: true });
  return withLock(lockOf(first), `the build of ${relative(root, first) || first}`, () =>
    holding(rest, work),
  );
}

/**
 * Builds whichever of `packages` (`{ name, dir }`, packages of the workspace at `workspace`, this
 * repository by default) is stale: one package with tsdown in its folder, several in one
 * `tsdown -W` run filtered to their names. Each package's lock is held meanwhile, taken in the
 * order of their folders (a prepack holds one lock and waits for no other, so two callers never
 * wait on each other). `quiet` keeps tsdown's report unless it fails; `onBuild` hears the names
 * of the packages about to be built.
 */
export function buildStale(
  packages,
  { quiet = false, workspace = root, onBuild = () => undefined } = {},
) {
  const wanted = packages.filter((pkg) => stale(pkg.dir));
  wanted.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  if (wanted.length === 0) return;
  holding(
    wanted.map((pkg) => pkg.dir),
    () => {
      // Another caller may have built some while this one waited.
      const still = wanted.filter((pkg) => stale(pkg.dir));
      if (still.length === 0) return;
      onBuild(still.map((pkg) => pkg.name));
      const [file, args, cwd] =
        still.length === 1
          ? [tsdown, [], still[0].dir]
          : [tsdown, ['-W', ...still.flatMap((pkg) => ['-F', pkg.name])], workspace];
      try {
        execFileSync(file, args, {
          cwd,
          stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        });
      } catch (error) {
        throw new Error(
          `tsdown ${args.join(' ')} failed in ${relative(root, cwd) || '.'}:\n${error.stdout ?? ''}${error.stderr ?? ''}`,
        );
      }
      for (const pkg of still) writeFileSync(stampOf(pkg.dir), `${new Date().toISOString()}\n`);
    },
  );
}

/** Every published workspace package (each has this script as its prepack). */
export function publishedPackages() {
  const dir = join(root, 'packages');
  return readdirSync(dir)
    .map((name) => ({
      dir: join(dir, name),
      manifest: JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')),
    }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [option] = process.argv.slice(2);
  if (option === '--all') buildStale(publishedPackages());
  else if (option !== undefined)
    throw new Error(`unknown option ${option}: build-if-stale.mjs [--all]`);
  else {
    const dir = process.cwd();
    const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    buildStale([{ name, dir }]);
  }
}
