/**
 * A package's `prepack` (scripts/build-if-stale.mjs) builds it holding a lock, so two callers
 * packing it at once build it once. A build killed while it held the lock (Ctrl-C during
 * `pnpm test`) must not make the next `pack` wait: the lock names its holder's PID, and a lock
 * whose holder is gone is taken over at once; a live holder is waited for, and named.
 * Run on throw-away packages of its own (tsdown of the workspace, nothing of the workspace built);
 * several stale packages are built in one tsdown run of their workspace (`--all`, `pnpm pack:all`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { repoRoot } from '@webhook-idempotency/test-support/node-lines';
import { killAll, start } from './child';

const BUILD = join(repoRoot, 'scripts', 'build-if-stale.mjs');
const LOCK_MODULE = join(repoRoot, 'scripts', 'lock.mjs');
const work = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'build-lock-'));
let packages = 0;

/**
 * A package that was never built, in `parent` (a workspace's folder, or the test's own): one
 * source file and a tsdown config without declarations.
 */
function stalePackage(parent = work): { name: string; dir: string; lock: string; dist: string } {
  const name = `lock-test-${++packages}`;
  const dir = join(parent, `package-${packages}`);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const answer: number = 42;\n');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'commonjs' }),
  );
  writeFileSync(
    join(dir, 'tsdown.config.ts'),
    "export default { entry: { index: 'src/index.ts' }, format: ['esm'], platform: 'node', dts: false };\n",
  );
  return {
    name,
    dir,
    lock: join(dir, 'node_modules', '.wi-building'),
    dist: join(dir, 'dist', 'index.mjs'),
  };
}

/** A PID no process has any more: a child that ran and was reaped. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  if (!pid) throw new Error('no child started');
  return pid;
}

const build = (dir: string) => start(process.execPath, [BUILD], { cwd: dir });

/** A workspace of its own holding `count` stale packages. */
function staleWorkspace(count: number) {
  const dir = join(work, `workspace-${packages}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'workspace', private: true }));
  return { dir, packages: Array.from({ length: count }, () => stalePackage(dir)) };
}

/** `buildStale` of those packages (what `--all` and `pnpm pack:all` call), in a process of its own. */
function buildTogether(workspace: ReturnType<typeof staleWorkspace>) {
  const list = workspace.packages.map(({ name, dir }) => ({ name, dir }));
  const script = `
    import { buildStale } from ${JSON.stringify(BUILD)};
    buildStale(${JSON.stringify(list)}, { workspace: ${JSON.stringify(workspace.dir)} });
  `;
  return start(process.execPath, ['--input-type=module', '-e', script]);
}

afterEach(killAll);
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('a lock whose process is gone is taken over at once: the build proceeds', async () => {
  const pkg = stalePackage();
  const pid = deadPid();
  writeFileSync(pkg.lock, `${pid}\n`);
  const child = build(pkg.dir);
  expect(await child.exited).toBe(0);
  expect(child.output()).toContain(`taking over ${pkg.lock}, left by process ${pid}`);
  expect(existsSync(pkg.dist)).toBe(true);
  expect(existsSync(pkg.lock)).toBe(false);
});

it('the lock folder an earlier version left (no holder recorded) is taken over too', async () => {
  const pkg = stalePackage();
  mkdirSync(pkg.lock);
  const child = build(pkg.dir);
  expect(await child.exited).toBe(0);
  expect(existsSync(pkg.dist)).toBe(true);
  expect(existsSync(pkg.lock)).toBe(false);
});

it('a lock of a live process is waited for, with its PID named, and taken once it is gone', async () => {
  const pkg = stalePackage();
  const holder = start(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  writeFileSync(pkg.lock, `${holder.pid}\n`);
  const child = build(pkg.dir);
  await child.waitFor(new RegExp(`waiting for process ${holder.pid}, which holds`));
  // While the holder lives, nothing is built.
  expect(child.done()).toBe(false);
  expect(existsSync(pkg.dist)).toBe(false);
  process.kill(holder.pid, 'SIGKILL');
  await holder.exited;
  expect(await child.exited).toBe(0);
  expect(existsSync(pkg.dist)).toBe(true);
});

it('callers building the same stale package at once build it once', async () => {
  const pkg = stalePackage();
  const children = [build(pkg.dir), build(pkg.dir), build(pkg.dir)];
  expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0, 0]);
  const builds = children.map((child) => child.output().match(/Build complete/g)?.length ?? 0);
  expect(builds.reduce((sum, n) => sum + n, 0)).toBe(1);
  expect(existsSync(pkg.lock)).toBe(false);
});

it('processes racing to take over a dead lock hold it one at a time', async () => {
  const lock = join(work, 'race.lock');
  const log = join(work, 'race.log');
  writeFileSync(lock, `${deadPid()}\n`);
  writeFileSync(log, '');
  // Each records when it enters and leaves, and holds the lock a little while.
  const holder = `
    import { appendFileSync } from 'node:fs';
    import { withLock } from ${JSON.stringify(LOCK_MODULE)};
    withLock(${JSON.stringify(lock)}, 'the race', () => {
      appendFileSync(${JSON.stringify(log)}, 'enter ' + process.pid + '\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      appendFileSync(${JSON.stringify(log)}, 'leave ' + process.pid + '\\n');
    });
  `;
  const racers = Array.from({ length: 4 }, () =>
    start(process.execPath, ['--input-type=module', '-e', holder]),
  );
  expect(await Promise.all(racers.map((racer) => racer.exited))).toEqual([0, 0, 0, 0]);
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(8);
  // Strictly alternating: every enter is followed by the same process's leave.
  for (let i = 0; i < lines.length; i += 2) {
    expect(lines[i]).toMatch(/^enter \d+$/);
    expect(lines[i + 1]).toBe(lines[i]!.replace('enter', 'leave'));
  }
  expect(existsSync(lock)).toBe(false);
});

it('stale packages are built together, in one tsdown run of their workspace; each prepack then builds nothing', async () => {
  const workspace = staleWorkspace(3);
  const together = buildTogether(workspace);
  expect(await together.exited).toBe(0);
  // One tsdown process: its banner once, a build per package (colours off: CI=true turns them on).
  const output = stripVTControlCharacters(together.output());
  expect(output.match(/tsdown v\d/g)).toHaveLength(1);
  for (const pkg of workspace.packages) {
    expect(output).toContain(`[${pkg.name}] Build complete`);
    expect(existsSync(pkg.dist)).toBe(true);
    expect(existsSync(pkg.lock)).toBe(false);
  }
  const prepacks = workspace.packages.map((pkg) => build(pkg.dir));
  expect(await Promise.all(prepacks.map((child) => child.exited))).toEqual([0, 0, 0]);
  for (const prepack of prepacks) expect(prepack.output()).not.toContain('Build complete');
});

it('a build of several waits for the lock one of them is held under, and builds none before it has every lock', async () => {
  const workspace = staleWorkspace(2);
  const [first, second] = workspace.packages;
  const holder = start(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  writeFileSync(second!.lock, `${holder.pid}\n`);
  const together = buildTogether(workspace);
  await together.waitFor(new RegExp(`waiting for process ${holder.pid}, which holds`));
  expect(together.done()).toBe(false);
  expect(existsSync(first!.dist)).toBe(false);
  process.kill(holder.pid, 'SIGKILL');
  await holder.exited;
  expect(await together.exited).toBe(0);
  expect(existsSync(first!.dist) && existsSync(second!.dist)).toBe(true);
  expect(existsSync(first!.lock) || existsSync(second!.lock)).toBe(false);
});
