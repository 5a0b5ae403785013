/**
 * A fresh clone has no Prisma clients (generated, not committed), and any jest run that imports
 * one (`pnpm test:proof`, `pnpm exec jest <an ORM suite>`) must still pass right after
 * `pnpm install`: jest's global setup generates what is missing or out of date, once however many
 * jest runs start at once, and nothing when all is up to date.
 * Run on a copy of the checkout's test machinery and Prisma schemas in a folder of its own (its
 * node_modules linked to the workspace's), holding no generated client: the real jest, the real
 * global setup, the real `prisma generate`.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '@webhook-idempotency/test-support/node-lines';
import { killAll, start } from './child';

/** The schemas scripts/prisma-generate.mjs generates, and the client each one's test imports. */
const SCHEMAS = {
  'packages/sql/test/prisma/postgresql.prisma': 'packages/sql/test/prisma/generated/postgresql',
  'packages/sql/test/prisma/mysql.prisma': 'packages/sql/test/prisma/generated/mysql',
  'packages/sql/test/prisma/sqlite.prisma': 'packages/sql/test/prisma/generated/sqlite',
  'packages/reliability/prisma/storm.prisma': 'packages/reliability/prisma/generated',
  'examples/prisma-stripe/prisma/schema.prisma': 'examples/prisma-stripe/prisma/generated',
};
/** What a test in the copy imports: every client, as the ORM suites do. */
const SUITE = `
const clients = ${JSON.stringify(Object.values(SCHEMAS))};
it.each(clients)('%s is there', (client) => {
  expect(typeof require(require('node:path').join(__dirname, '..', '..', '..', client, 'client')).PrismaClient).toBe('function');
});
`;

const copy = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'prisma-clients-'));

beforeAll(() => {
  for (const path of [
    'package.json',
    'jest.config.ts',
    'test-support',
    'scripts',
    ...Object.keys(SCHEMAS),
  ])
    cpSync(join(repoRoot, path), join(copy, path), { recursive: true });
  for (const path of ['', 'packages/sql', 'packages/reliability', 'examples/prisma-stripe'])
    symlinkSync(join(repoRoot, path, 'node_modules'), join(copy, path, 'node_modules'), 'dir');
  mkdirSync(join(copy, 'packages', 'sql', 'test'), { recursive: true });
  writeFileSync(join(copy, 'packages', 'sql', 'test', 'clients.test.ts'), SUITE);
});
afterEach(killAll);
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** A jest run in the copy, as `pnpm exec jest <file>` starts one (no database server needed). */
function jest() {
  const env: NodeJS.ProcessEnv = { ...process.env, WI_JEST_SERVERS: 'none' };
  for (const name of ['WI_JEST_LANE', 'JEST_JSON', 'JEST_WORKER_ID']) delete env[name];
  return start(
    process.execPath,
    [join(copy, 'node_modules', 'jest', 'bin', 'jest.js'), 'packages/sql/test/clients.test.ts'],
    { cwd: copy, env },
  );
}

/** The schemas a run's output says it generated. */
const generated = (output: string) =>
  [...output.matchAll(/Generating the Prisma client of (\S+)/g)].map((match) => match[1]);

const clientFile = (schema: keyof typeof SCHEMAS) => join(copy, SCHEMAS[schema], 'client.ts');

it('two jest runs started at once without clients both pass, each client generated once', async () => {
  const runs = [jest(), jest()];
  const codes = await Promise.all(runs.map((run) => run.exited));
  expect({
    codes,
    output: codes.some((code) => code !== 0) ? runs.map((run) => run.output()) : [],
  }).toEqual({
    codes: [0, 0],
    output: [],
  });
  expect(runs.flatMap((run) => generated(run.output())).sort()).toEqual(
    Object.keys(SCHEMAS).sort(),
  );
}, 300_000);

it('the next run finds every client up to date and generates none', async () => {
  const before = Object.keys(SCHEMAS).map(
    (schema) => statSync(clientFile(schema as keyof typeof SCHEMAS)).mtimeMs,
  );
  const run = jest();
  expect(await run.exited).toBe(0);
  expect(generated(run.output())).toEqual([]);
  expect(
    Object.keys(SCHEMAS).map(
      (schema) => statSync(clientFile(schema as keyof typeof SCHEMAS)).mtimeMs,
    ),
  ).toEqual(before);
}, 120_000);

it('a changed schema and a removed client are generated again, and nothing else', async () => {
  const sqlite = 'packages/sql/test/prisma/sqlite.prisma';
  cpSync(join(repoRoot, sqlite), join(copy, sqlite));
  writeFileSync(join(copy, sqlite), '\nmodel Extra {\n  id String @id\n}\n', { flag: 'a' });
  rmSync(dirname(clientFile('packages/sql/test/prisma/postgresql.prisma')), { recursive: true });
  const run = jest();
  expect(await run.exited).toBe(0);
  expect(generated(run.output()).sort()).toEqual([
    'packages/sql/test/prisma/postgresql.prisma',
    sqlite,
  ]);
}, 180_000);
