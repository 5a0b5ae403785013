/**
 * @module What the Bun and Deno suites share: one project of the jest run, outside the workspace,
 * with the packed tarballs and the registry packages installed by plain npm; the suites bundled
 * into it so that every import of ours is the installed tarball; running a runtime's test runner
 * there and reading its JUnit report.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { packedTarballs, tarballOf } from '@webhook-idempotency/test-support/packs';
import { repoRoot } from '@webhook-idempotency/test-support/node-lines';
import { onceForRun } from '@webhook-idempotency/test-support/run-once';
import { RUNTIMES, type Runtime } from '@webhook-idempotency/test-support/runtimes';
import { type CaseResult, parseJunit } from './junit';

const run = promisify(execFile);

/** Ours, as the suites and the docs' servers import them. */
const OURS = [
  '@webhook-idempotency/core',
  '@webhook-idempotency/sql',
  '@webhook-idempotency/fetch',
  '@webhook-idempotency/hono',
  '@webhook-idempotency/providers',
];
/**
 * From the registry, at the workspace's versions: the framework, the PostgreSQL driver and its
 * types, jest's `expect` (Deno has none of its own), and Bun's type declarations with TypeScript
 * (the docs' Bun files are type-checked by tsc; Deno checks its own).
 */
const REGISTRY = [
  'hono@4.13.19',
  'pg@8.23.1',
  '@types/pg@8.23.1',
  'expect@30.5.2',
  `bun-types@${RUNTIMES.bun.version}`,
  'typescript@6.0.3',
];

/**
 * The project (created once per jest run, whichever runtime file asks first): `package.json`
 * of an ES module app, our tarballs and {@link REGISTRY} installed with npm, and the docs'
 * server files of tests/runtimes/apps. Peer resolution is off (`--legacy-peer-deps`): every
 * package is listed, and resolving the optional peers of the sql package (Prisma, Drizzle and
 * theirs) costs npm most of a minute for packages it would not install.
 */
export function runtimeProject(): Promise<string> {
  return onceForRun('runtime-project', async (dir) => {
    const packed = await packedTarballs();
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'runtime-consumer', private: true, type: 'module' }, null, 2)}\n`,
    );
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--prefer-offline',
        '--legacy-peer-deps',
        '--loglevel=error',
        ...OURS.map((name) => tarballOf(packed, name)),
        ...REGISTRY,
      ],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
    );
    cpSync(join(__dirname, 'apps'), dir, { recursive: true });
    return dir;
  });
}

/** Our published packages' folders under packages/, by folder name (`sql`). */
const published = new Set(OURS.map((name) => name.split('/')[1]!));

/**
 * Bare imports stay imports, resolved in the project (our tarballs, hono, pg, the runtime's
 * modules); a relative import of a published package's entry (`../src` in its tests) becomes its
 * package name; other workspace files (the suites) are bundled. Externals are declared free of
 * side effects, so an import that only an unused part of a shared file needs (supertest,
 * better-sqlite3) is dropped instead of loaded.
 */
const tarballImports: Plugin = {
  name: 'tarball-imports',
  setup(bundle) {
    bundle.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (!args.path.startsWith('.') && !args.path.startsWith('/'))
        return { path: args.path, external: true, sideEffects: false };
      const target = relative(join(repoRoot, 'packages'), resolve(args.resolveDir, args.path));
      const [folder, inside, ...rest] = target.split(sep);
      if (!folder || !published.has(folder) || inside !== 'src') return undefined;
      if (rest.length > 0 && rest.join('/') !== 'index' && rest.join('/') !== 'index.ts')
        return {
          errors: [
            {
              text: `${args.importer} imports ${args.path}: only a package's public entry runs here`,
            },
          ],
        };
      return { path: `@webhook-idempotency/${folder}`, external: true, sideEffects: false };
    });
  },
};

/**
 * Bundles the workspace file `entry` into `project/outfile` (an ES module). `expectFrom` names
 * the module whose `expect` replaces the global one the shared cases use (for a runner without
 * jest's globals).
 */
export async function bundleInto(
  project: string,
  entry: string,
  outfile: string,
  expectFrom?: string,
): Promise<void> {
  const inject: string[] = [];
  if (expectFrom) {
    const shim = join(project, `${outfile}.expect.mjs`);
    writeFileSync(shim, `export { expect } from '${expectFrom}';\n`);
    inject.push(shim);
  }
  await build({
    entryPoints: [join(repoRoot, entry)],
    outfile: join(project, outfile),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'silent',
    plugins: [tarballImports],
    inject,
  });
}

/** What a runtime's test runner reported, by full test name. */
export interface RunnerReport {
  readonly results: Map<string, CaseResult>;
  /** Everything the runner printed, to show when a result is missing. */
  readonly output: string;
}

/**
 * Runs `runtime` with `args` in `project` (its test runner, writing a JUnit report to `report`)
 * and reads the report. The runner's exit code is not the verdict: each result is.
 * @throws {Error} when the runner wrote no report (it did not start, or crashed), with its output.
 */
export async function runRunner(
  runtime: Runtime,
  project: string,
  args: readonly string[],
  report: string,
  env: Record<string, string>,
): Promise<RunnerReport> {
  const { stdout, stderr } = await run(runtime.bin, args, {
    cwd: project,
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? String(error),
  }));
  const output = `${stdout}\n${stderr}`;
  const file = join(project, report);
  if (!existsSync(file))
    throw new Error(`${runtime.name} ${args.join(' ')} wrote no report:\n${output}`);
  return { results: parseJunit(readFileSync(file, 'utf8')), output };
}

/** Fails unless the report holds `name` and it passed, with the runner's own failure text. */
export function expectPassed(report: RunnerReport | undefined, name: string): void {
  if (!report) throw new Error('the runtime did not run (see the first failure of this file)');
  const result = report.results.get(name);
  if (!result)
    throw new Error(
      `no result for "${name}": the runner did not run it\n${report.output.slice(-4000)}`,
    );
  if (result.skipped) throw new Error(`"${name}" was skipped`);
  if (result.failure !== undefined) throw new Error(result.failure);
}
