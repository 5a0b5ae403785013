/**
 * Runs suites again on the other Node lines of NODE_LINES (the machine's Node runs everything in
 * the main jest run). Part of `pnpm test`; the packed-tarball consumers run on every line from
 * tests/consumers. Exit code: 1 if any line failed.
 * `node -r esbuild-register test-support/run-node-lines.ts [prepare]`: `prepare` only downloads
 * the lines and builds better-sqlite3 for each, and fetches Bun and Deno (tests/runtimes runs its
 * suites in them, once, in the jest run), before jest starts (so no compiler or download competes
 * with the database suites for the two cores). A runtime that cannot be fetched fails it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { WORKERD_SUITES } from '../jest.config';
import { allNodes, NODE_LINES, prepareNode, repoRoot } from './node-lines';
import { prepareRuntime } from './runtimes';

/**
 * On every line: the Node API whose behaviour moves from line to line under our code (node:sqlite,
 * 22.5+; the store needs 22.16; Node 20 cannot run it). These suites need no database server.
 */
const EVERY_LINE = [
  'packages/sql/test/node-sqlite.test.ts',
  'examples/snippets/test/node-sqlite.test.ts',
];

/**
 * On the newest line, so the oldest (the machine's Node, in the main run) and the newest run them
 * both: core's unit suites, the HTTP conformance of one adapter per transport core holds responses
 * through (Express on node:http, fetch on Web Request/Response; every framework's own adapter
 * runs on each line from the packed tarballs, in tests/consumers), and the pg-boss bridge. The
 * lines between get the packed-tarball
 * consumers (every adapter's duplicate answered from the receipt, the CLI) and EVERY_LINE; with
 * `WI_NODE_LINES_FULL=1`, every line runs these too. The full adapter matrix and the database
 * suites run once, on the machine's Node.
 */
const NEWEST_LINE = [
  'packages/core/test',
  'packages/express/test/express.test.ts',
  'packages/fetch/test/fetch.test.ts',
  // pg-boss 12 itself declares Node >= 22.12 (the storm proof runs on the machine's Node only).
  'packages/pg-boss/test/pg-boss.test.ts',
];

/** `26.12.1` → [26, 12, 1], to find the newest line whatever the order of NODE_LINES. */
const parts = (version: string) => version.split('.').map(Number);
const newest = [...NODE_LINES].sort((a, b) => {
  const [x, y] = [parts(a), parts(b)];
  return x.reduce((order, part, i) => order || part - (y[i] ?? 0), 0);
})[NODE_LINES.length - 1];

/**
 * The line that also runs the Cloudflare Workers suites (miniflare and wrangler need Node >= 22),
 * once per run: the first such line of NODE_LINES. None is an error, never a skip.
 */
function workerdLine(): string {
  const line = NODE_LINES.find((version) => Number(version.split('.')[0]) >= 22);
  if (!line)
    throw new Error(
      `the Cloudflare Workers suites need a Node >= 22 line in NODE_LINES (${NODE_LINES.join(', ')})`,
    );
  return line;
}

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
  const workerd = workerdLine();
  for (const version of NODE_LINES) {
    const node = await prepareNode(version);
    const full = version === newest || process.env.WI_NODE_LINES_FULL === '1';
    const withWorkerd = version === workerd;
    console.log(
      `\n== ${full ? 'core, Express, fetch and node:sqlite' : 'node:sqlite'} suites${withWorkerd ? ', and the Cloudflare Workers suites,' : ''} on Node ${node.version}`,
    );
    const results = process.env.JEST_JSON?.replace(/\.json$/, `-node${version}.json`);
    const run = spawnSync(
      node.bin,
      [
        join(repoRoot, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--maxWorkers=2',
        ...(full ? [...NEWEST_LINE, ...EVERY_LINE] : EVERY_LINE),
        ...(withWorkerd ? WORKERD_SUITES : []),
      ],
      {
        cwd: repoRoot,
        stdio: 'inherit',
        env: {
          ...process.env,
          WI_BETTER_SQLITE3: node.betterSqlite3,
          // EVERY_LINE alone needs no server: jest then starts none (about 10 s a run). NEWEST_LINE
          // needs the databases (pg-boss, the SQL stores under the adapters), never Redis or a
          // DynamoDB server (no JVM to start).
          WI_JEST_SERVERS: full ? 'databases' : 'none',
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
