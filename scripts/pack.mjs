#!/usr/bin/env node
// Packs every published package with pnpm into one folder, as `pnpm publish` would: the prepack
// script builds it first and publishConfig swaps in the build's entry points.
// `node scripts/pack.mjs <dir> [name…]` prints the tarballs as JSON (only the named packages, if any).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The workspace packages that are published: every non-private folder under packages/. */
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

/** Runs a command quietly; on failure, throws with everything it printed. */
function run(command, args, cwd) {
  try {
    execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${error.stdout}${error.stderr}`,
    );
  }
}

/** The tarball `pnpm pack` writes for `pkg` into `destination`. */
const tarballIn = (destination, pkg) =>
  join(destination, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);

/**
 * Packs each published package into `destination` (its `prepack` builds it first), or only those
 * `names` lists; returns `{ name, dir, tarball }[]`.
 */
export function packAll(destination, names) {
  mkdirSync(destination, { recursive: true });
  const wanted = publishedPackages().filter((pkg) => !names?.length || names.includes(pkg.name));
  const missing = names?.filter((name) => !wanted.some((pkg) => pkg.name === name)) ?? [];
  if (missing.length) throw new Error(`not a published package: ${missing.join(', ')}`);
  return wanted.map((pkg) => {
    run('pnpm', ['pack', '--pack-destination', destination], pkg.dir);
    return { ...pkg, tarball: tarballIn(destination, pkg) };
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

// `node scripts/pack.mjs [dir] [name…]`: only the packages named, when any are.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const destination = resolve(process.argv[2] ?? join(root, '.tmp', 'packs'));
  console.log(JSON.stringify(packAll(destination, process.argv.slice(3)), null, 2));
}
