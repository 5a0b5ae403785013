#!/usr/bin/env node
// Generates the Prisma clients the tests use (packages/sql/test/prisma/<provider>.prisma →
// generated/<provider>, the storm's packages/reliability/prisma/storm.prisma and the example's
// examples/prisma-stripe/prisma/schema.prisma → generated/ beside each; none committed), before
// anything type-checks or runs them: jest's global setup runs it at the start of every jest run
// (so `pnpm exec jest <file>` works right after `pnpm install`), and so does `pnpm typecheck`.
//
// Only what is out of date is generated: a client is up to date when the stamp written beside it
// holds the hash of its schema and of the Prisma versions that generated it, so a run that finds
// them all up to date costs a few file reads. Several jest runs start at once (`pnpm test` runs
// three side by side): they generate one at a time through a lock (scripts/lock.mjs), and each
// looks again once it holds the lock, so each client is generated once.
//
// `prisma generate` needs no schema engine, but without PRISMA_SCHEMA_ENGINE_BINARY the CLI first
// downloads one from binaries.prisma.sh, which machines without that host refuse ("getaddrinfo
// ENOTFOUND binaries.prisma.sh"): pointing the variable at any executable skips the download.
// `node scripts/prisma-generate.mjs [--force]`: `--force` generates every client again.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withLock } from './lock.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const packages = join(root, 'packages');
const sql = join(packages, 'sql');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
};
const schemas = [
  ...['postgresql', 'mysql', 'sqlite'].map((provider) =>
    join(sql, 'test', 'prisma', `${provider}.prisma`),
  ),
  join(packages, 'reliability', 'prisma', 'storm.prisma'),
  join(root, 'examples', 'prisma-stripe', 'prisma', 'schema.prisma'),
];
// In the checkout's own (git-ignored) .cache folder, never in a node_modules that may be shared.
const lock = join(root, '.cache', 'prisma-generate.lock');
const STAMP = '.wi-generated-from';

/** The version of `name` that code in `dir` gets. */
function versionFrom(dir, name) {
  const manifest = createRequire(join(dir, 'noop.js')).resolve(`${name}/package.json`);
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

/** The folder the schema's generator writes to (its `output`, relative to the schema). */
function outputOf(schema, text) {
  const output = /^\s*output\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  if (!output) throw new Error(`${schema}: its generator names no output folder`);
  return resolve(dirname(schema), output);
}

/** Where a schema's client goes, and the stamp an up-to-date client carries. */
function target(schema) {
  const text = readFileSync(schema, 'utf8');
  const hash = createHash('sha256')
    .update(text)
    .update(`\0prisma ${versionFrom(sql, 'prisma')}`)
    .update(`\0@prisma/client ${versionFrom(dirname(schema), '@prisma/client')}`)
    .digest('hex');
  return { schema, output: outputOf(schema, text), hash };
}

/** Why the client of `t` must be generated, or undefined when it is up to date. */
function staleness({ output, hash }) {
  const stamp = join(output, STAMP);
  if (!existsSync(stamp)) return 'no client generated yet';
  return readFileSync(stamp, 'utf8').trim() === hash ? undefined : 'its schema or Prisma changed';
}

function generate({ schema, output, hash }, reason) {
  process.stderr.write(`Generating the Prisma client of ${relative(root, schema)} (${reason})\n`);
  // Gone while the client is being written: a generation cut short is done again next time.
  rmSync(join(output, STAMP), { force: true });
  execFileSync(join(sql, 'node_modules', '.bin', 'prisma'), ['generate', '--schema', schema], {
    cwd: dirname(schema),
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Written whole, then renamed: a reader never sees half a stamp.
  mkdirSync(output, { recursive: true });
  writeFileSync(join(output, `${STAMP}.partial`), `${hash}\n`);
  renameSync(join(output, `${STAMP}.partial`), join(output, STAMP));
}

const force = process.argv.includes('--force');
const pending = () => schemas.map(target).filter((t) => force || staleness(t) !== undefined);

if (pending().length > 0) {
  mkdirSync(dirname(lock), { recursive: true });
  withLock(lock, 'prisma generate', () => {
    // Another run may have generated them while this one waited.
    for (const t of force ? schemas.map(target) : pending())
      generate(t, force ? 'asked to' : staleness(t));
  });
}
