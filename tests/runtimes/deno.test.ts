/**
 * Deno, run for real, from the packed tarballs (installed with npm in a project outside the
 * workspace, which Deno reads through its package.json): the HTTP suite of the Web adapters
 * (fetch, Hono) on `Deno.serve` over `node:sqlite` and PostgreSQL (`pg`), run by `deno test` with
 * jest's `expect` package; and the docs' Deno server files, type-checked by `deno check` and run
 * with the permissions the docs give. Deno comes from the npm registry (test-support/runtimes.ts;
 * `pnpm run test:prepare` fetches it first): when it cannot be installed, every test here fails.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prepareRuntime, RUNTIMES, type Runtime } from '@webhook-idempotency/test-support/runtimes';
import { planWebSuite } from '../../packages/adapter-conformance/src/web/cases';
import { pgDatabase } from '../../packages/sql/test/helpers/databases';
import {
  expectHandledOnce,
  expectOversizedRefused,
  githubDelivery,
  OVERSIZED_ROUNDS,
  pgRows,
  sqliteRows,
  startServer,
  stripeDelivery,
} from './docs-servers';
import { bundleInto, expectPassed, type RunnerReport, runRunner, runtimeProject } from './project';

const run = promisify(execFile);
const { version } = RUNTIMES.deno;
const webTests = planWebSuite(['node:sqlite', 'pg']).map((planned) => planned.name);
/** No update check, no permission prompt (a missing permission fails), no colours in reports. */
const DENO_ENV = { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', NO_COLOR: '1' };
/** What the docs tell a user to run the server file with. */
const RUN = ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-write'];

let deno: Runtime | undefined;
let project = '';
let report: RunnerReport | undefined;
/** What `deno check` of the docs' server files printed when it failed; '' when they type-check. */
let checked: string | undefined;

beforeAll(async () => {
  [deno, project] = await Promise.all([prepareRuntime('deno'), runtimeProject()]);
  const [pgUrl] = await Promise.all([
    pgDatabase('wi_runtime_deno'),
    bundleInto(
      project,
      'packages/adapter-conformance/src/web/deno.ts',
      'web.deno.test.mjs',
      'expect',
    ),
  ]);
  // The type check of the docs' files runs beside the suite: neither waits for the other.
  [report, checked] = await Promise.all([
    runRunner(
      deno,
      project,
      [
        'test',
        '--allow-all',
        '--no-check',
        '--no-lock',
        '--reporter=junit',
        '--junit-path=deno-report.xml',
        './web.deno.test.mjs',
      ],
      'deno-report.xml',
      { ...DENO_ENV, WI_RUNTIME_PG_URL: pgUrl },
    ),
    run(deno.bin, ['check', 'deno-fetch.ts', 'deno-hono.ts'], {
      cwd: project,
      env: { ...process.env, ...DENO_ENV },
    }).then(
      () => '',
      (error: { stdout?: string; stderr?: string }) =>
        `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
    ),
  ]);
}, 15 * 60_000);

describe(`Deno ${version}: the HTTP suite on Deno.serve (deno test)`, () => {
  it.each(webTests)('%s', (name) => expectPassed(report, name));
});

describe(`Deno ${version}: the docs' server files (deno check, deno run)`, () => {
  const secret = 'whsec_runtime_deno';

  it("type-check against the tarballs' type declarations (deno check)", () => {
    expect(checked).toBe('');
  });

  it('docs/adapters/fetch.md: Deno.serve with node:sqlite answers a Stripe event once, its redelivery from the receipt, a forged one 401; one payment row', async () => {
    const file = join(project, 'deno-fetch.db');
    const server = await startServer(deno!, [...RUN, 'deno-fetch.ts'], project, {
      ...DENO_ENV,
      DATABASE_FILE: file,
      STRIPE_WEBHOOK_SECRET: secret,
    });
    try {
      await expectHandledOnce(
        server,
        '/webhooks/stripe',
        stripeDelivery(secret, 'pi_deno'),
        stripeDelivery('whsec_forged', 'pi_deno'),
      );
    } finally {
      await server.stop();
    }
    expect(sqliteRows(file, 'payments')).toBe(1);
  });

  it('docs/adapters/hono.md: Hono on Deno.serve with pg answers a GitHub push once, its redelivery from the receipt, a forged one 401; one push row', async () => {
    const url = await pgDatabase('wi_runtime_deno_docs');
    const server = await startServer(deno!, [...RUN, 'deno-hono.ts'], project, {
      ...DENO_ENV,
      DATABASE_URL: url,
      GITHUB_WEBHOOK_SECRET: secret,
    });
    try {
      await expectHandledOnce(
        server,
        '/webhooks/github',
        githubDelivery(secret, 'deno-delivery-1'),
        githubDelivery('forged', 'deno-delivery-1'),
      );
    } finally {
      await server.stop();
    }
    expect(await pgRows(url, 'pushes')).toBe(1);
  });

  it(`docs/adapters/fetch.md and hono.md: a 2 MiB delivery over the default limit is answered 413, and the sender reads it every time (${OVERSIZED_ROUNDS} rounds of 4 kinds of sender, to each server)`, async () => {
    const url = await pgDatabase('wi_runtime_deno_oversized');
    const fetchServer = await startServer(deno!, [...RUN, 'deno-fetch.ts'], project, {
      ...DENO_ENV,
      DATABASE_FILE: join(project, 'deno-fetch-oversized.db'),
      STRIPE_WEBHOOK_SECRET: secret,
    });
    try {
      await expectOversizedRefused(fetchServer, '/webhooks/stripe');
    } finally {
      await fetchServer.stop();
    }
    const honoServer = await startServer(deno!, [...RUN, 'deno-hono.ts'], project, {
      ...DENO_ENV,
      DATABASE_URL: url,
      GITHUB_WEBHOOK_SECRET: secret,
    });
    try {
      await expectOversizedRefused(honoServer, '/webhooks/github', { 'x-github-event': 'push' });
    } finally {
      await honoServer.stop();
    }
  });
});
