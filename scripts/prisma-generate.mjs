#!/usr/bin/env node
// Generates the Prisma clients the SQL store's tests use (packages/sql/test/prisma/<provider>.prisma
// → generated/<provider>, not committed), before anything type-checks or runs them. `prisma
// generate` needs no schema engine, but without PRISMA_SCHEMA_ENGINE_BINARY the CLI first
// downloads one from binaries.prisma.sh, which machines without that host refuse ("getaddrinfo
// ENOTFOUND binaries.prisma.sh"): pointing the variable at any executable skips the download.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sql = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'sql');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
};
for (const provider of ['postgresql', 'mysql', 'sqlite']) {
  execFileSync(
    join(sql, 'node_modules', '.bin', 'prisma'),
    ['generate', '--schema', join('test', 'prisma', `${provider}.prisma`)],
    { cwd: sql, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
}
