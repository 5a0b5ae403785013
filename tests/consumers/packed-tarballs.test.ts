/**
 * The packages as users meet them: packed by pnpm (once per jest run, test-support/packs.ts),
 * installed with plain npm in an empty folder outside the workspace, then required, imported and
 * type-checked there, on the machine's Node and on every line of NODE_LINES
 * (test-support/node-lines.ts), each with its own better-sqlite3. And the README's Install
 * section, its commands run as written: `pnpm pack:all`, then `npm i` of the tarballs in an app
 * that compiles with only the database driver it chose.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  allNodes,
  NODE_LINES,
  repoRoot,
  type NodeRuntime,
} from '@webhook-idempotency/test-support/node-lines';
import { type PackedTarball, packedTarballs } from '@webhook-idempotency/test-support/packs';
import { pgDatabase } from '../../packages/sql/test/helpers/databases';

const run = promisify(execFile);

interface PackedPackage {
  readonly name: string;
  readonly tarball: string;
  readonly problems: readonly string[];
}

/** The published packages: every workspace package under packages/ that is not private. */
const published = readdirSync(join(repoRoot, 'packages'))
  .map(
    (folder) =>
      JSON.parse(readFileSync(join(repoRoot, 'packages', folder, 'package.json'), 'utf8')) as {
        name: string;
        private?: boolean;
      },
  )
  .filter((manifest) => !manifest.private)
  .map((manifest) => manifest.name);

/** What the consumers install from the registry, at the versions the workspace tests with. */
const FRAMEWORKS = [
  'express@5.3.0',
  'fastify@5.12.8',
  'koa@3.2.1',
  'hono@4.13.19',
  '@hono/node-server@2.1.8',
  '@opentelemetry/api@1.9.1',
  '@nestjs/common@12.5.1',
  '@nestjs/core@12.5.1',
  '@nestjs/platform-express@12.5.1',
  '@nestjs/platform-fastify@12.5.0',
  'reflect-metadata@0.2.2',
  'rxjs@7.8.2',
  'bullmq@6.7.0',
  'pg-boss@12.38.0',
  'ioredis@6.0.0',
  'redis@6.4.0',
  '@aws-sdk/client-dynamodb@3.1178.0',
  '@aws-sdk/lib-dynamodb@3.1178.0',
  '@aws-sdk/util-dynamodb@3.996.9',
];
/** The ORMs the sql package's entry points serve. */
const ORMS = ['kysely@0.28.19', 'drizzle-orm@0.45.4', 'postgres@3.4.9'];
/**
 * Prisma 7, on the machine's Node only (its CLI and generated client are the heaviest install
 * here): the client, its SQLite driver adapter and the CLI that writes the client for
 * tests/consumers/prisma/schema.prisma.
 */
const PRISMA = ['@prisma/client@7.10.0', '@prisma/adapter-better-sqlite3@7.10.0', 'prisma@7.10.1'];
const TYPES = [
  'typescript@6.0.3',
  '@types/node@20.19.43',
  '@types/express@5.0.6',
  '@types/koa@3.0.3',
  '@types/better-sqlite3@9.6.0',
  '@types/pg@8.23.1',
  '@types/aws-lambda@8.10.164',
];
const APPS = [
  'express-sqlite.cjs',
  'express-sqlite.mjs',
  'express-kysely-sqlite.mjs',
  'express-drizzle-sqlite.cjs',
  'express-postgres-js.mjs',
  'express-redis.cjs',
  'express-redis.mjs',
  'express-dynamodb.cjs',
  'express-dynamodb.mjs',
  'fastify-memory.cjs',
  'fastify-memory.mjs',
  'koa-memory.cjs',
  'koa-memory.mjs',
  'fetch-memory.cjs',
  'fetch-memory.mjs',
  'hono-memory.cjs',
  'hono-memory.mjs',
  'lambda-memory.cjs',
  'lambda-memory.mjs',
  'nestjs-express.cjs',
  'nestjs-fastify.mjs',
];
/**
 * Provider SDKs whose types the presets' type-only entries derive their event maps from: only the
 * consumer that compiles provider-sdks/ needs them (the README's app installs none).
 */
/**
 * The apps on each other Node line: every package and both module formats, each app once (its
 * CommonJS/ESM twin runs on the machine's Node). Every line starts the same stacks; what differs
 * between the twins is the loader, which every line still runs both of.
 */
const LINE_APPS = [
  'express-sqlite.cjs',
  'express-kysely-sqlite.mjs',
  'express-drizzle-sqlite.cjs',
  'express-postgres-js.mjs',
  'express-redis.cjs',
  'express-dynamodb.mjs',
  'fastify-memory.mjs',
  'koa-memory.cjs',
  'fetch-memory.mjs',
  'hono-memory.cjs',
  'lambda-memory.mjs',
  'nestjs-express.cjs',
  'nestjs-fastify.mjs',
];
const PROVIDER_SDKS = [
  'stripe@23.1.0',
  '@octokit/openapi-webhooks-types@12.2.0',
  '@microsoft/microsoft-graph-types@2.43.1',
  '@azure/eventgrid@5.12.0',
  'chargebee@3.33.0',
];
const RESOLUTIONS = ['node16', 'nodenext', 'bundler'];
/** Every Node the apps run on: the machine's, then each line of NODE_LINES. */
const NODE_NAMES = ['machine', ...NODE_LINES];

const work = mkdtempSync(join(tmpdir(), 'wi-consumers-'));
let packed: PackedPackage[] = [];
/** The Node each name of NODE_NAMES runs, once prepared. */
const nodes = new Map<string, NodeRuntime>();
/** The consumer project every Node runs the apps and the command in (`consumerOn`). */
const consumerDir = join(work, 'consumer');
let prismaDir = '';
/** The provider SDKs' project of the machine's consumer (`skipLibCheck: false`, the SDKs installed). */
const SDK_PROJECT = join('provider-sdks', 'tsconfig.json');
/** What `tsc -p <project>` printed in the machine's consumer: '' when it passed. */
const typeChecks = new Map<string, string>();

/** Runs the consumer's TypeScript on `project`; resolves with its errors ('' when none). */
function typeCheck(dir: string, project: string): Promise<string> {
  const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', project], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

/**
 * An empty npm project with the apps and type checks copied in, and the tarballs installed in
 * one `npm install` with everything the apps use. better-sqlite3 comes from the registry at the
 * version of the machine's build, as a user installs it, and its folder is then swapped for that
 * build (`useBetterSqlite3`): installed as a folder link instead, npm's arborist fails placing
 * drizzle-orm's optional peers next to it ("Cannot read properties of null (reading 'matches')").
 */
async function makeConsumer(node: NodeRuntime, tarballs: readonly PackedTarball[]): Promise<void> {
  const dir = consumerDir;
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  cpSync(join(__dirname, 'apps'), dir, { recursive: true });
  cpSync(join(__dirname, 'types'), join(dir, 'types'), { recursive: true });
  cpSync(join(__dirname, 'provider-sdks'), join(dir, 'provider-sdks'), { recursive: true });
  await npmInstall(dir, [
    ...tarballs.map((pkg) => pkg.tarball),
    ...FRAMEWORKS,
    betterSqlite3Like(node),
    ...TYPES,
    ...PROVIDER_SDKS,
    ...ORMS,
  ]);
  useBetterSqlite3(dir, node);
}

/** `better-sqlite3@<version>`: the registry's release of the build `node` loads. */
function betterSqlite3Like(node: NodeRuntime): string {
  const manifest = join(node.betterSqlite3, 'package.json');
  return `better-sqlite3@${(JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version}`;
}

/**
 * Points `dir`'s better-sqlite3 at the build for `node` (the only native module here; npm
 * installed the registry's without its binary, scripts off), as a link to that folder. Throws
 * when npm installed none there.
 */
function useBetterSqlite3(dir: string, node: NodeRuntime): void {
  const installed = join(dir, 'node_modules', 'better-sqlite3');
  rmSync(installed, { recursive: true });
  symlinkSync(node.betterSqlite3, installed, 'dir');
}

/**
 * The consumer project, its better-sqlite3 the build for `nodeName`'s Node. npm installs the same
 * tree whichever Node runs the apps (it runs on the machine's Node in any case), and better-sqlite3
 * is the only native module: one install serves every line, each block of tests pointing it at
 * its own Node's build before it runs anything (the blocks run one after another).
 */
function consumerOn(nodeName: string): { node: NodeRuntime; dir: string } {
  const node = nodes.get(nodeName);
  if (!node) throw new Error(`no Node prepared for ${nodeName}`);
  useBetterSqlite3(consumerDir, node);
  return { node, dir: consumerDir };
}

/**
 * Runs `npm install` of `packages` in `dir`, as a user does (scripts off: ours have none). Every
 * version is pinned, so a package in npm's cache is taken from it without asking the registry
 * whether it changed (`--prefer-offline`: those round trips cost about a minute per install).
 */
function npmInstall(dir: string, packages: string[]) {
  return run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefer-offline',
      '--loglevel=error',
      ...packages,
    ],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  );
}

/**
 * A Prisma 7 project of its own (the Prisma CLI brings drivers the other consumers must not
 * have: mysql2, which the CLI test expects to be missing): our tarballs, Express, the client and
 * its SQLite adapter in one install (better-sqlite3 swapped for the machine's build, as in
 * `makeConsumer`); then `prisma generate` as a user runs it, and the app compiled with tsc
 * (nodenext) beside its source. The CLI fetches a schema engine from binaries.prisma.sh before
 * any command, which these machines cannot reach ("getaddrinfo ENOTFOUND binaries.prisma.sh");
 * `generate` never runs it, so PRISMA_SCHEMA_ENGINE_BINARY points at any executable.
 */
async function makePrismaConsumer(
  node: NodeRuntime,
  tarballs: readonly PackedTarball[],
): Promise<string> {
  const dir = join(work, 'consumer-prisma');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer-prisma', private: true, type: 'module' }, null, 2),
  );
  for (const file of ['deliveries.cjs', 'deliveries.d.cts'])
    cpSync(join(__dirname, 'apps', file), join(dir, file));
  cpSync(join(__dirname, 'prisma'), join(dir, 'prisma'), { recursive: true });
  const ours = [
    '@webhook-idempotency/core',
    '@webhook-idempotency/express',
    '@webhook-idempotency/sql',
  ];
  await npmInstall(dir, [
    ...tarballs.filter((pkg) => ours.includes(pkg.name)).map((pkg) => pkg.tarball),
    'express@5.3.0',
    betterSqlite3Like(node),
    'typescript@6.0.3',
    '@types/node@20.19.43',
    '@types/express@5.0.6',
    ...PRISMA,
  ]);
  useBetterSqlite3(dir, node);
  await run(
    process.execPath,
    [
      join(dir, 'node_modules', 'prisma', 'build', 'index.js'),
      'generate',
      '--schema',
      join('prisma', 'schema.prisma'),
    ],
    { cwd: dir, env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true' } },
  );
  const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', join('prisma', 'tsconfig.build.json')], {
    cwd: dir,
  }).catch((error: { stdout?: string }) => {
    throw new Error(`tsc -p prisma/tsconfig.build.json failed:\n${error.stdout ?? error}`);
  });
  return dir;
}

/** What a consumer app printed (deliveries.cjs): a 201 first, then that answer replayed, one run. */
function expectDuplicateReplayed(stdout: string): void {
  const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
  expect(result.first).toMatchObject({ status: 201, replayed: null });
  expect(result.second).toEqual({ status: 201, body: result.first.body, replayed: 'true' });
  expect(JSON.parse(result.first.body)).toMatchObject({ order: 1 });
  expect(result.runs).toBe(1);
}

beforeAll(async () => {
  // Packed once for the run (tests/runtimes installs the same tarballs); linted (publint and
  // arethetypeswrong) beside the installs, which need only the tarballs.
  const [tarballs, prepared] = await Promise.all([packedTarballs(), allNodes()]);
  for (const [index, node] of prepared.entries())
    nodes.set(NODE_NAMES[index] ?? node.version, node);
  const machine = prepared[0]!;
  // The README's install needs nothing the rest makes: it starts here, beside the rest, and its
  // own tests' hook waits for it (and reports its failure).
  readmeInstall = installAsTheReadmeSays(machine);
  readmeInstall.catch(() => undefined);
  await Promise.all([
    run(
      process.execPath,
      [join(repoRoot, 'scripts', 'check-packages.mjs'), '--packed', dirname(tarballs[0]!.tarball)],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
    ).then((report) => {
      packed = JSON.parse(report.stdout.trim().split('\n').pop() ?? '[]') as PackedPackage[];
    }),
    (async () => {
      await makeConsumer(machine, tarballs);
      // The type checks of the consumer, each a full tsc program over every public entry point
      // (tens of seconds each on two cores): side by side, as part of preparing the consumer, as
      // soon as it is installed; the tests below read their output.
      await Promise.all(
        [...RESOLUTIONS.map((r) => join('types', `tsconfig.${r}.json`)), SDK_PROJECT].map(
          async (project) => typeChecks.set(project, await typeCheck(consumerDir, project)),
        ),
      );
    })(),
    (async () => {
      prismaDir = await makePrismaConsumer(machine, tarballs);
    })(),
  ]);
}, 15 * 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(published)('%s tarball', (name) => {
  const pkg = (): PackedPackage => {
    const found = packed.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`${name} was not packed`);
    return found;
  };

  it('passes publint (strict) and arethetypeswrong', () => {
    expect(pkg().problems).toEqual([]);
  });

  it('holds the build, README and LICENSE, and no sources, tests or fixtures', async () => {
    const { stdout } = await run('tar', ['-tzf', pkg().tarball]);
    const files = stdout
      .trim()
      .split('\n')
      .map((file) => file.replace(/^package\//, ''));
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/index.mjs',
        'dist/index.cjs',
        'dist/index.d.mts',
        'dist/index.d.cts',
      ]),
    );
    const strays = files.filter(
      (file) =>
        /(^|\/)(src|test|tests|fixtures|__tests__)\//.test(file) ||
        (/\.ts$/.test(file) && !/\.d\.[cm]ts$/.test(file)),
    );
    expect(strays).toEqual([]);
  });
});

describe.each(NODE_NAMES)('apps installed from the tarballs, on Node %s', (nodeName) => {
  let consumer: { node: NodeRuntime; dir: string };
  beforeAll(() => {
    consumer = consumerOn(nodeName);
  });

  it.each(nodeName === 'machine' ? APPS : LINE_APPS)(
    '%s: the duplicate is answered from the receipt',
    async (app) => {
      // The PostgreSQL app gets a database of its own on the server the test run started.
      const env = app.includes('postgres')
        ? {
            ...process.env,
            WI_CONSUMER_POSTGRES_URL: await pgDatabase(
              `wi_consumer_${nodeName}_${app}`.replace(/\W/g, '_').toLowerCase(),
            ),
          }
        : process.env;
      const { stdout } = await run(consumer.node.bin, [app], {
        cwd: consumer.dir,
        env,
        timeout: 60_000,
      });
      expectDuplicateReplayed(stdout);
    },
  );
});

it('the other Node lines run every app package, in both module formats', () => {
  expect(LINE_APPS.every((app) => APPS.includes(app))).toBe(true);
  const stacks = (apps: readonly string[]) =>
    new Set(apps.map((app) => app.replace(/\.[cm]js$/, '')));
  expect(stacks(LINE_APPS)).toEqual(stacks(APPS));
  expect(new Set(LINE_APPS.map((app) => app.slice(-3)))).toEqual(new Set(['cjs', 'mjs']));
});

describe.each(NODE_NAMES)(
  'the webhook-idempotency command from its tarball, on Node %s',
  (nodeName) => {
    let consumer: { node: NodeRuntime; dir: string };
    beforeAll(() => {
      consumer = consumerOn(nodeName);
    });

    const command = async (args: string[]) => {
      const bin = join(consumer.dir, 'node_modules', '.bin', 'webhook-idempotency');
      // The machine's Node runs the bin file itself (its shebang, its executable bit); the others through node.
      const [file, argv] =
        nodeName === 'machine' ? [bin, args] : [consumer.node.bin, [bin, ...args]];
      return run(file, argv, {
        cwd: consumer.dir,
        timeout: 60_000,
        env: { ...process.env, PATH: `${dirname(consumer.node.bin)}:${process.env.PATH}` },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: error.code ?? -1,
          stdout: error.stdout ?? '',
          stderr: error.stderr ?? '',
        }),
      );
    };

    it('prints its help, migrates a SQLite file and reads it', async () => {
      expect(await command(['--help'])).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^Usage: webhook-idempotency/),
      });
      const url = `sqlite:cli-${nodeName}.db`;
      expect(await command(['migrate', '--url', url])).toMatchObject({
        code: 0,
        stdout: `Created table webhook_receipts and its indexes in ${url}.\n`,
      });
      expect(await command(['status', '--url', url, '--fail-on-stuck'])).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(
          /^No receipts in webhook_receipts\.\n\nIgnored \(no route: nothing stored or run\), since \S+: none\n$/,
        ),
      });
    });

    // mysql2: pg is there, a peer of pg-boss (the pg-boss bridge's peer), as in a user's project.
    it('names the driver to install when it is missing', async () => {
      expect(await command(['status', '--url', 'mysql://127.0.0.1:1/x'])).toEqual({
        code: 3,
        stdout: '',
        stderr:
          'webhook-idempotency: The MySQL/MariaDB driver is not installed: npm install mysql2\n',
      });
    });
  },
);

describe('a Prisma 7 consumer (machine Node)', () => {
  const consumer = () => {
    const node = nodes.get('machine');
    if (!prismaDir || !node) throw new Error('no Prisma consumer project');
    return { dir: prismaDir, node };
  };

  // nodenext: the app's build (prisma/tsconfig.build.json, which extends tsconfig.nodenext.json
  // and emits) is that type check, in beforeAll; the app it emits runs below.
  it.each(RESOLUTIONS.filter((resolution) => resolution !== 'nodenext'))(
    'type-checks the transaction client of its generated schema under moduleResolution %s',
    async (resolution) => {
      const { dir } = consumer();
      const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
      const result = await run(
        process.execPath,
        [tsc, '-p', join('prisma', `tsconfig.${resolution}.json`)],
        { cwd: dir },
      ).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(result).toBe('');
    },
  );

  it('express + Prisma over adapter-better-sqlite3: the duplicate is answered from the receipt', async () => {
    const { dir, node } = consumer();
    const { stdout } = await run(node.bin, [join('prisma', 'app.js')], {
      cwd: dir,
      timeout: 60_000,
    });
    expectDuplicateReplayed(stdout);
  });
});

/** Signs with the test kit and verifies with the preset, as one JSON line: [delivery, forged]. */
const KIT_CHECK = `
  const secret = 'whsec_consumer';
  const delivery = signers.stripe({ secret }).event({ id: 'evt_kit', type: 'ping' });
  const preset = providers.stripe({ secret: ['whsec_rotated_out', secret] });
  const request = (d) => ({ method: d.method, url: d.path, headers: { ...d.headers }, rawBody: d.body, native: {} });
  Promise.all([preset.verify(request(delivery)), preset.verify(request(delivery.forged()))])
    .then((verdicts) => console.log(JSON.stringify(verdicts)));
`;

describe('the test kit (@webhook-idempotency/providers/testing) from its tarball', () => {
  it.each([
    [
      'required (CommonJS)',
      [
        '-e',
        `const signers = require('@webhook-idempotency/providers/testing'); const providers = require('@webhook-idempotency/providers');${KIT_CHECK}`,
      ],
    ],
    [
      'imported (ES module)',
      [
        '--input-type=module',
        '-e',
        `import * as signers from '@webhook-idempotency/providers/testing'; import * as providers from '@webhook-idempotency/providers';${KIT_CHECK}`,
      ],
    ],
  ])(
    '%s: its delivery verifies with a preset given two secrets, its forged copy does not',
    async (_how, args) => {
      const { stdout } = await run(process.execPath, args, { cwd: consumerOn('machine').dir });
      expect(JSON.parse(stdout.trim())).toEqual([true, false]);
    },
  );
});

describe('a TypeScript consumer', () => {
  it.each(RESOLUTIONS)(
    'type-checks every public entry point under moduleResolution %s',
    (resolution) => {
      expect(typeChecks.get(join('types', `tsconfig.${resolution}.json`))).toBe('');
    },
  );
});

describe('a TypeScript consumer with provider SDKs installed', () => {
  it("types the presets' events with the SDKs' own types (strict, skipLibCheck: false): misspelt names fail", () => {
    expect(typeChecks.get(SDK_PROJECT)).toBe('');
  });
});

/** The lines of the sh block of README's Install section whose first line starts with `start`. */
function readmeInstallBlock(start: string): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const from = readme.indexOf('\n## Install\n');
  const section = readme.slice(from, readme.indexOf('\n## ', from + 1));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    match[1]!.trim().split('\n'),
  );
  const block = blocks.find((lines) => lines[0]!.startsWith(start));
  if (!block) throw new Error(`README's Install section has no sh block starting with ${start}`);
  return block;
}

/** The README app's folder, under a HOME of the test's so `~/wi-packs` is its own. */
const readmeHome = join(work, 'home');
const readmeApp = join(readmeHome, 'app');
/** What `pnpm pack:all` printed, and what tsc reported on the README app ('' when clean). */
const readme = { printed: '', compiled: '' };
/** The README's install, under way from the file's first hook. */
let readmeInstall: Promise<void> | undefined;

/**
 * What the README's Install section tells someone trying the packages in an app of their own
 * before a release: its commands, run as written (`sh -c`, each line), with HOME the test's
 * folder. npm keeps the machine's settings and cache, with install scripts off: the registry's
 * better-sqlite3 then has no binary, and the build for this Node takes its place (as for every
 * consumer here).
 */
async function installAsTheReadmeSays(machine: NodeRuntime): Promise<void> {
  const [home, app] = [readmeHome, readmeApp];
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  const { stdout: cache } = await run('npm', ['config', 'get', 'cache']);
  const env = {
    ...process.env,
    HOME: home,
    npm_config_userconfig: join(homedir(), '.npmrc'),
    npm_config_cache: cache.trim(),
    npm_config_ignore_scripts: 'true',
  };
  const sh = (line: string, cwd: string) =>
    run('sh', ['-c', line], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  for (const line of readmeInstallBlock('pnpm pack:all'))
    readme.printed += (await sh(line, repoRoot)).stdout;
  for (const line of readmeInstallBlock('npm i ~/wi-packs/')) await sh(line, app);
  // The packages whose peers are optional, and the toolchain of a TypeScript app.
  const optional = ['dashboard', 'providers', 'cli', 'fetch', 'opentelemetry'].map((name) =>
    join(home, 'wi-packs', `webhook-idempotency-${name}.tgz`),
  );
  await npmInstall(app, [
    ...optional,
    '@opentelemetry/api@1.9.1',
    'typescript@6.0.3',
    '@types/node@20.19.43',
  ]);
  useBetterSqlite3(app, machine);
  cpSync(join(__dirname, 'driver-only'), app, { recursive: true });
  for (const file of ['express-sqlite.mjs', 'deliveries.cjs'])
    cpSync(join(__dirname, 'apps', file), join(app, file));
  // Checking every declaration (no skipLibCheck) takes a while: done here, judged below.
  const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
  readme.compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

describe("the README's install: pnpm pack:all, then npm i of the tarballs in an app", () => {
  const [home, app] = [readmeHome, readmeApp];
  beforeAll(async () => {
    if (!readmeInstall) throw new Error("the README's install did not start");
    await readmeInstall;
  }, 15 * 60_000);

  it('pnpm pack:all prints the npm i line the README gives', () => {
    const [line] = readmeInstallBlock('npm i ~/wi-packs/');
    expect(readme.printed.split('\n')).toContain(line!.replaceAll('~/', `${home}/`));
  });

  it('the app serves a duplicate from the receipt', async () => {
    const { stdout } = await run(process.execPath, ['express-sqlite.mjs'], {
      cwd: app,
      timeout: 60_000,
    });
    expectDuplicateReplayed(stdout);
  });

  it('its TypeScript compiles (strict, skipLibCheck: false) with better-sqlite3 the only driver', () => {
    expect(
      ['knex', 'pg', 'mysql2', 'postgres', 'kysely', 'drizzle-orm', '@prisma/client'].filter(
        (driver) => existsSync(join(app, 'node_modules', driver)),
      ),
    ).toEqual([]);
    expect(readme.compiled).toBe('');
  });
});
