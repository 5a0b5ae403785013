/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

/** `node:sqlite` exists from Node 22.5 (the store needs 22.16): its suite is collected where it exists. */
function hasNodeSqlite(): boolean {
  // Not `require`: Node 22+ may load this file as an ES module (type stripping).
  try {
    return process.getBuiltinModule?.('node:sqlite') !== undefined;
  } catch {
    return false;
  }
}

/**
 * The suites that run Cloudflare's workerd through miniflare and wrangler, which need Node >= 22:
 * not collected on an older Node; `pnpm test` runs them once, on the first Node 22+ line
 * (test-support/run-node-lines.ts).
 */
export const WORKERD_SUITES = [
  'packages/sql/test/d1.test.ts',
  'examples/snippets/test/stores-d1.test.ts',
  'examples/cloudflare-d1/test/workers.test.ts',
];

const nodeMajor = Number(process.versions.node.split('.')[0]);

/**
 * The suites that kill servers and databases, cut connections or measure memory: they hold
 * wall-clock bounds of their own (client timeouts, stale thresholds), so `pnpm test` runs them
 * after the rest (test-support/run-jest.ts), in three queues side by side, each one file at a time
 * with servers of its own. Two queues hold the proofs that keep a core busy (app servers and
 * databases killed and restarted under traffic, and the memory test; the second also the pg-boss
 * bridge's proof and outage), the third the fault tests that mostly wait on timers (a cut
 * connection's timeouts, stale thresholds, the BullMQ bridge's stall checks and hand-offs) and use
 * little CPU beside them. In runs of `.ci/run` on a 2-core machine (2026-12-07), with the pg-boss
 * bridge's files (15-17 s) among the fault tests, the guard's queue took 90-111 s, the inbox's
 * 69-83 s and the fault tests' 112-127 s (21-30 s of CPU), the stage 123-145 s; with them in the
 * inbox's queue, 85-99, 79-85 and 105-107 s, the stage 114-118 s. Split into a fourth queue, the
 * fault tests ended sooner, but the proof queues, sharing the cores with one more, took as much
 * longer: the stage took 132 s.
 */
export const SERIAL_GROUPS = {
  // The guard's storms (Express servers and their SQL, Redis and DynamoDB stores killed under
  // thousands of deliveries) and the memory test.
  guard: [
    '/packages/reliability/test/storm\\.test\\.ts$',
    '/packages/reliability/test/dynamodb-storm\\.test\\.ts$',
    '/packages/reliability/test/memory\\.test\\.ts$',
  ],
  // The outbox's storm (its handlers, dispatchers and database killed), the inbox's SQL proofs,
  // the group commit's durability proof (its PostgreSQL killed under a group), the SQL stores'
  // crash and cross-process tests, and the pg-boss bridge's proof and outage (they wait on the
  // queue's timers; here rather than with the fault tests, whose queue was the stage's longest).
  inbox: [
    '/packages/reliability/test/outbox-storm\\.test\\.ts$',
    '/packages/reliability/test/group-commit-durability\\.test\\.ts$',
    '/packages/sql/test/(inbox-proof|crash|cross-process)\\.test\\.ts$',
    '/packages/pg-boss/test/(proof|outage)\\.test\\.ts$',
  ],
  // The waiting ones: cut and lost connections, hung handlers and batches longer than the stale
  // threshold, the inbox's lease bounds, the BullMQ bridge (its proof, crash and outage wait on
  // the queue's timers), and the Redis and DynamoDB stores' fault tests (their killed servers).
  faults: [
    '/packages/reliability/test/(connection-faults|hung-handler|pg-terminated|connection-lost-under-handler)\\.test\\.ts$',
    '/packages/reliability/test/regression/batch-longer-than-stale\\.test\\.ts$',
    '/packages/sql/test/inbox-proof-bounds\\.test\\.ts$',
    '/packages/bullmq/test/(proof|crash|outage)\\.test\\.ts$',
    '/packages/redis/test/faults\\.test\\.ts$',
    '/packages/dynamodb/test/faults\\.test\\.ts$',
  ],
};
export const SERIAL_SUITES = Object.values(SERIAL_GROUPS).flat();
/**
 * The shared servers each serial queue's jest run starts (its `WI_JEST_SERVERS`; unset: all). The
 * storms start durable servers of their own, so the guard's queue and the inbox's need the
 * databases alone (the inbox's proofs and the crash tests run on them, and the storms' scratch
 * folders go in theirs, removed at teardown); of the fault tests, only the BullMQ bridge's use the
 * shared Redis (the Redis and DynamoDB stores' fault tests start and kill servers of their own).
 * So no shared DynamoDB Local (a JVM, about 20 s of CPU to start on busy cores) starts in this
 * stage (the DynamoDB storm starts its own). A run narrowed to some files (`pnpm test:jest
 * <paths>`) starts every server in every queue.
 */
export const SERIAL_SERVERS: Readonly<Record<keyof typeof SERIAL_GROUPS, string | undefined>> = {
  guard: 'databases',
  inbox: 'databases',
  faults: 'databases,redis',
};

/** Files compiled with legacy decorators and metadata (type-checked by packages/nestjs/tsconfig.json). */
const DECORATED =
  '/(packages/nestjs/test|examples/nestjs-payme)/.+\\.ts$|/examples/snippets/src/nestjs\\.ts$|/packages/adapter-conformance/src/apps/nestjs\\.ts$';

// One jest run covers every workspace package and example. swc strips the types (fast);
// `tsc --noEmit` runs first in `pnpm test` to check them.
const config: Config = {
  testEnvironment: 'node',
  transform: {
    // NestJS code (the nestjs package's tests, the conformance registry's Nest apps, its example,
    // its docs snippet) uses TypeScript's legacy decorators with their design-type metadata, which
    // Nest's dependency injection reads.
    // Only those files are compiled so; the first matching pattern wins.
    [DECORATED]: [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
    // @linear/sdk ships ES modules only, as .mjs (its webhook verifier judges the linear preset).
    '/node_modules/@linear/sdk/.+\\.mjs$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  testMatch: [
    '<rootDir>/packages/*/test/**/*.test.ts',
    '<rootDir>/examples/*/test/**/*.test.ts',
    '<rootDir>/tests/**/*.test.ts',
  ],
  // On another Node line (test-support/run-node-lines.ts), the better-sqlite3 built for that Node.
  ...(process.env.WI_BETTER_SQLITE3
    ? { moduleNameMapper: { '^better-sqlite3$': process.env.WI_BETTER_SQLITE3 } }
    : {}),
  // NestJS 12, Kysely 0.29, pg-boss 12 (with two of its dependencies), @linear/sdk and uuid 14 (which
  // @vonage/jwt requires) ship ES modules only:
  // jest cannot require them, so swc compiles them to CommonJS like our own sources. Everything else in
  // node_modules is loaded as it is.
  transformIgnorePatterns: [
    '^(?!.*/node_modules/(@nestjs|kysely|pg-boss|rrule-temporal|serialize-error|non-error|@linear|uuid)/).*/node_modules/',
  ],
  modulePathIgnorePatterns: ['<rootDir>/.tmp/', '<rootDir>/.cache/'],
  // On Node 20 (no node:sqlite) that one suite is not collected; run-node-lines.ts runs it on every other line.
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(hasNodeSqlite() ? [] : ['/node-sqlite\\.test\\.ts$']),
    ...(nodeMajor >= 22 ? [] : WORKERD_SUITES.map((suite) => `/${suite.replace(/\./g, '\\.')}$`)),
    // The parallel lane of `pnpm test` leaves the serial suites to the lane after it.
    ...(process.env.WI_JEST_LANE === 'parallel' ? SERIAL_SUITES : []),
  ],
  // Generates the Prisma clients the ORM suites import, when out of date (a fresh clone has none),
  // and starts PostgreSQL, MariaDB and Redis for the store and queue tests (and stops them
  // afterwards); `WI_JEST_SERVERS=none` starts no server, for a run of suites that need none
  // (test-support/run-node-lines.ts on the lines between the oldest and the newest).
  globalSetup: '<rootDir>/test-support/global-setup.ts',
  globalTeardown: '<rootDir>/test-support/global-teardown.ts',
  testTimeout: 30_000,
  // With JEST_JSON, each file's CPU seconds for the run's report (test-support/cpu-per-file.js).
  ...(process.env.JEST_JSON
    ? { setupFilesAfterEnv: ['<rootDir>/test-support/cpu-per-file.js'] }
    : {}),
  reporters: ['default', '<rootDir>/test-support/summary-reporter.js'],
};

export default config;
