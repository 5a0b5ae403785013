#!/usr/bin/env node
// Generates the Prisma clients the tests use (packages/sql/test/prisma/<provider>.prisma →
// generated/<provider>, the storm's packages/reliability/prisma/storm.prisma and the example's
// examples/prisma-stripe/prisma/schema.prisma → generated/ beside each; none committed), before anything type-checks or runs them. `prisma
// generate` needs no schema engine, but without PRISMA_SCHEMA_ENGINE_BINARY the CLI first
// downloads one from binaries.prisma.sh, which machines without that host refuse ("getaddrinfo
// ENOTFOUND binaries.prisma.sh"): pointing the variable at any executable skips the download.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packages = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages');
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
  join(packages, '..', 'examples', 'prisma-stripe', 'prisma', 'schema.prisma'),
];
for (const schema of schemas) {
  execFileSync(join(sql, 'node_modules', '.bin', 'prisma'), ['generate', '--schema', schema], {
    cwd: dirname(schema),
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
