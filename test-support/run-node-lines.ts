/**
 * Runs the core and adapter suites on every Node line of NODE_LINES (the full database suite
 * stays on the machine's Node). Part of `pnpm test`; the packed-tarball consumers run on the same
 * lines from tests/consumers. Exit code: 1 if any line failed.
 * `node -r esbuild-register test-support/run-node-lines.ts [prepare]`: `prepare` only downloads
 * the lines and builds better-sqlite3 for each, and fetches Bun and Deno (tests/runtimes runs its
 * suites in them, once, in the jest run), before jest starts (so no compiler or download competes
 * with the database suites for the two cores). A runtime that cannot be fetched fails it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { allNodes, NODE_LINES, prepareNode, repoRoot } from './node-lines';
import { prepareRuntime } from './runtimes';

/**
 * What must pass on every supported Node: core's unit suites, and one entry per framework and per
 * store that needs no server (each adapter's HTTP conformance run, the pg-boss bridge, node:sqlite).
 * The full adapter matrix (captures, events, inbox endpoints) and the database suites run once, on
 * the machine's Node; the code they cover does not differ between Node lines.
 */
const SUITES = [
  'packages/core/test',
  'packages/express/test/express.test.ts',
  'packages/fastify/test/fastify.test.ts',
  'packages/koa/test/koa.test.ts',
  'packages/fetch/test/fetch.test.ts',
  'packages/hono/test/hono.test.ts',
  'packages/nestjs/test/conformance.test.ts',
  // pg-boss 12 itself declares Node >= 22.12: its bridge is tested on every line (the storm proof on the machine's Node only).
  'packages/pg-boss/test/pg-boss.test.ts',
  // The one store suite that needs no server and that Node 20 cannot run (node:sqlite is 22.5+, the store needs 22.16).
  'packages/sql/test/node-sqlite.test.ts',
  'examples/snippets/test/node-sqlite.test.ts',
];

async function main(): Promise<number> {
  if (process.argv[2] === 'prepare') {
    const [nodes, ...runtimes] = await Promise.all([
      allNodes(),
      prepareRuntime('bun'),
      prepareRuntime('deno'),
    ]);
    for (const node of nodes) console.log(`Node ${node.version}: ${node.bin}`);
    for (const runtime of runtimes)
      console.log(`${runtime.name} ${runtime.version}: ${runtime.bin}`);
    return 0;
  }
  let failed = 0;
  for (const version of NODE_LINES) {
    const node = await prepareNode(version);
    console.log(`\n== core and adapter suites on Node ${node.version}`);
    const results = process.env.JEST_JSON?.replace(/\.json$/, `-node${version}.json`);
    const run = spawnSync(
      node.bin,
      [join(repoRoot, 'node_modules', 'jest', 'bin', 'jest.js'), '--maxWorkers=2', ...SUITES],
      {
        cwd: repoRoot,
        stdio: 'inherit',
        env: {
          ...process.env,
          WI_BETTER_SQLITE3: node.betterSqlite3,
          ...(results ? { JEST_JSON: results } : {}),
        },
      },
    );
    if (run.status !== 0) failed++;
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
