#!/usr/bin/env node
// Packs every published package with pnpm into one folder, as `pnpm publish` would: the stale
// ones are first built together (scripts/build-if-stale.mjs), and publishConfig swaps in the
// build's entry points. Each tarball is named after its package without the version
// (`webhook-idempotency-core.tgz`), so an `npm i` line of them stays the same from one version to
// the next.
// - `pnpm pack:all --out <dir> [name…]` (`node scripts/pack.mjs --out <dir>`; without `--out`,
//   into .tmp/packs): for people, until a release is on npm; prints the tarballs and the `npm i`
//   line to run in an app's folder (README, Install).
// - `node scripts/pack.mjs <dir> [name…]`: for the tests; prints the tarballs as JSON (only the
//   named packages, if any).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStale, publishedPackages } from './build-if-stale.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Runs a command, its stderr passed through (a prepack waiting for another build's lock says so);
 * on failure, throws with what it printed on stdout.
 */
function run(command, args, cwd) {
  try {
    execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${error.stdout ?? ''}`);
  }
}

/** The tarball of `pkg` in `destination`: `@webhook-idempotency/core` → `webhook-idempotency-core.tgz`. */
const tarballIn = (destination, pkg) =>
  join(destination, `${pkg.name.replace('@', '').replace('/', '-')}.tgz`);

/**
 * Packs each published package into `destination`, or only those `names` lists, the stale ones
 * first built together (each pack's `prepack` then finds its build current); returns
 * `{ name, version, dir, tarball }[]`. `onPack` hears each package's name before it is packed,
 * `onBuild` the names of the stale ones before they are built.
 */
export function packAll(destination, names, onPack = () => undefined, onBuild = () => undefined) {
  mkdirSync(destination, { recursive: true });
  const wanted = publishedPackages().filter((pkg) => !names?.length || names.includes(pkg.name));
  const missing = names?.filter((name) => !wanted.some((pkg) => pkg.name === name)) ?? [];
  if (missing.length) throw new Error(`not a published package: ${missing.join(', ')}`);
  // The stale ones built in one tsdown run first: each pack's prepack then finds its build current.
  buildStale(wanted, { quiet: true, onBuild });
  return wanted.map((pkg) => {
    onPack(pkg.name);
    const tarball = tarballIn(destination, pkg);
    run('pnpm', ['pack', '--out', tarball], pkg.dir);
    return { ...pkg, tarball };
  });
}

/** The tarballs an earlier {@link packAll} left in `destination`, in the same shape; throws when one is missing. */
export function packedIn(destination) {
  return publishedPackages().map((pkg) => {
    const tarball = tarballIn(destination, pkg);
    if (!existsSync(tarball)) throw new Error(`${pkg.name} is not packed in ${destination}`);
    return { ...pkg, tarball };
  });
}

/** The packages of the example install line: core, the SQL store and the Express adapter. */
const EXAMPLE = ['core', 'sql', 'express'].map((name) => `@webhook-idempotency/${name}`);

/** What `pnpm pack:all --out <dir>` prints once the packages are packed. */
export function installGuide(packed) {
  const width = Math.max(...packed.map((pkg) => pkg.name.length));
  const example = EXAMPLE.map((name) => packed.find((pkg) => pkg.name === name)?.tarball);
  const line = example.every(Boolean)
    ? `npm i ${example.join(' ')} express better-sqlite3`
    : `npm i ${packed.map((pkg) => pkg.tarball).join(' ')}`;
  return [
    `Packed ${packed.length} packages into ${dirname(packed[0].tarball)}:`,
    ...packed.map((pkg) => `  ${pkg.name.padEnd(width)}  ${pkg.tarball}`),
    '',
    "In your app's folder, install core and the packages it uses from these tarballs, their",
    `peers (your framework, your database driver) from npm${example.every(Boolean) ? '; Express with SQLite:' : ':'}`,
    '',
    line,
  ].join('\n');
}

// A first argument that is a folder: the tests' JSON; anything else (`--out <dir>`, nothing): people's.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [first, ...rest] = process.argv.slice(2);
  if (first !== undefined && !first.startsWith('--')) {
    console.log(JSON.stringify(packAll(resolve(first), rest), null, 2));
  } else {
    const [dir = join(root, '.tmp', 'packs'), ...names] = first === '--out' ? rest : [];
    if (first !== undefined && first !== '--out')
      throw new Error(`unknown option ${first}: pnpm pack:all [--out <dir>] [package name…]`);
    const packed = packAll(
      resolve(dir),
      names,
      (name) => process.stderr.write(`packing ${name}\n`),
      (building) => process.stderr.write(`building ${building.join(', ')} (one tsdown run)\n`),
    );
    console.log(installGuide(packed));
  }
}
