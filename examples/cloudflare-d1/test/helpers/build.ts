/**
 * The Workers as a user builds them: our packages packed by pnpm (scripts/pack.mjs) and installed
 * with plain npm in an empty project beside the example's sources, wrangler.toml and migrations;
 * the migrations applied with `wrangler d1 migrations apply --local`, each Worker bundled with
 * `wrangler deploy --dry-run` and type-checked against `wrangler types`; then run in workerd by
 * miniflare, on the D1 state wrangler wrote.
 * Everything runs on the Node of the test (>= 22, which wrangler and miniflare need).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';

const run = promisify(execFile);
const example = resolve(__dirname, '..', '..');
const root = resolve(example, '..', '..');

/** Our packages a Worker imports. */
const PACKAGES = [
  '@webhook-idempotency/core',
  '@webhook-idempotency/sql',
  '@webhook-idempotency/fetch',
  '@webhook-idempotency/hono',
  '@webhook-idempotency/providers',
];
/** What the Worker project installs from the registry, at the workspace's versions. */
const HONO = 'hono@4.13.19';
/** GitHub's payload types (types only), which the Workers' handlers are typed with. */
const GITHUB_TYPES = '@octokit/openapi-webhooks-types@12.2.0';

/** The Worker entry points: src/<name>.ts, bundled to dist-<name>/<name>.js. */
export type WorkerName = 'hono' | 'fetch';

/** The Worker project, built. */
export interface BuiltProject {
  readonly dir: string;
  /** What wrangler printed applying the migrations. */
  readonly migrated: string;
  /** What docs/stores.md's command printed in the project: the receipts migration, from the packed package. */
  readonly migration: string;
  /** What tsc reported checking the Workers' sources against the types `wrangler types` generated. */
  readonly typeErrors: string;
  /** Starts one bundled Worker in workerd on a free port, with `vars` as its plain-text bindings. */
  start(name: WorkerName, vars: Record<string, string>): Promise<RunningWorker>;
  remove(): void;
}

/** A Worker running in workerd. */
export interface RunningWorker {
  readonly url: URL;
  readonly mf: Miniflare;
  close(): Promise<void>;
}

function wrangler(dir: string, args: string[]) {
  const bin = join(example, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  return run(process.execPath, [bin, ...args], {
    cwd: dir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`wrangler ${args.join(' ')} failed:\n${error.stdout}${error.stderr}`);
  });
}

/**
 * What workerd prints (a Worker's console, its errors), written through as it comes. Miniflare's
 * default prints each line with `console.error`, which under jest costs a stack trace mapped
 * through miniflare's 7 MB source map: seconds per Worker that logs an error (a failing route).
 */
function passThrough(stdout: Readable, stderr: Readable): void {
  stdout.pipe(process.stdout, { end: false });
  stderr.pipe(process.stderr, { end: false });
}

/** A setting of wrangler.toml (a string, or an array of strings), as written there. */
function setting(toml: string, name: string): unknown {
  const line = new RegExp(`^${name}\\s*=\\s*(.+?)\\s*(#.*)?$`, 'm').exec(toml);
  if (!line?.[1]) throw new Error(`wrangler.toml has no ${name}`);
  return JSON.parse(line[1]);
}

/**
 * Type-checks the Workers' sources as a user's project does, instead of against the workspace's
 * stand-in declaration: the bindings' types from `wrangler types` (the secret's name from
 * `.dev.vars`), the runtime's (its `D1Database`, its `cloudflare:workers`) from
 * @cloudflare/workers-types (the example's copy: generating them with `wrangler types` costs
 * workerd's start), our packages' own declarations from the tarballs. Resolves with tsc's report,
 * `''` when clean.
 */
async function typeCheck(dir: string): Promise<string> {
  rmSync(join(dir, 'src', 'cloudflare-workers.d.ts'));
  writeFileSync(join(dir, '.dev.vars'), 'GITHUB_WEBHOOK_SECRET=a-local-secret\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'esnext',
        moduleResolution: 'bundler',
        target: 'es2022',
        lib: ['es2022'],
        typeRoots: [join(example, 'node_modules', '@cloudflare')],
        types: ['workers-types'],
        skipLibCheck: true,
      },
      include: ['src', 'worker-configuration.d.ts'],
    }),
  );
  await wrangler(dir, ['types', '--include-runtime=false']);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

/** Packs, installs, migrates and bundles; resolves with the project. */
export async function buildProject(): Promise<BuiltProject> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-workers-'));
  try {
    return await build(dir);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function build(dir: string): Promise<BuiltProject> {
  for (const part of ['src', 'migrations', 'wrangler.toml'])
    cpSync(join(example, part), join(dir, part), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'github-webhooks', private: true, type: 'module' }, null, 2),
  );
  const packed = await run(
    process.execPath,
    [join(root, 'scripts', 'pack.mjs'), join(dir, 'packs'), ...PACKAGES],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  const tarballs = (JSON.parse(packed.stdout) as { tarball: string }[]).map((pkg) => pkg.tarball);
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefer-offline', // a cached hono needs no registry round trip
      '--loglevel=error',
      ...tarballs,
      HONO,
      GITHUB_TYPES,
    ],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  );
  // The command docs/stores.md gives for the migration's text.
  const migration = await run(
    process.execPath,
    ['-e', "process.stdout.write(require('@webhook-idempotency/sql').Schema.d1Migration())"],
    { cwd: dir },
  );
  const [migrated, , , typeErrors] = await Promise.all([
    wrangler(dir, ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', 'state']),
    wrangler(dir, ['deploy', '--dry-run', '--outdir', 'dist-hono']),
    wrangler(dir, ['deploy', 'src/fetch.ts', '--dry-run', '--outdir', 'dist-fetch']),
    typeCheck(dir),
  ]);
  const toml = readFileSync(join(dir, 'wrangler.toml'), 'utf8');
  return {
    dir,
    migrated: migrated.stdout,
    migration: migration.stdout,
    typeErrors,
    async start(name, vars) {
      const mf = new Miniflare({
        modules: true,
        modulesRoot: join(dir, `dist-${name}`),
        scriptPath: join(dir, `dist-${name}`, `${name}.js`),
        compatibilityDate: setting(toml, 'compatibility_date') as string,
        compatibilityFlags: setting(toml, 'compatibility_flags') as string[],
        bindings: vars,
        d1Databases: { DB: setting(toml, 'database_id') as string },
        d1Persist: join(dir, 'state', 'v3', 'd1'),
        host: '127.0.0.1',
        port: 0,
        handleRuntimeStdio: passThrough,
      });
      try {
        const url = await mf.ready;
        return { url, mf, close: () => mf.dispose() };
      } catch (error) {
        await mf.dispose();
        throw error;
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
