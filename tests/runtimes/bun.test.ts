/**
 * Bun, run for real, from the packed tarballs (installed with npm in a project outside the
 * workspace): the HTTP suite of the Web adapters (fetch, Hono) on `Bun.serve` over `bun:sqlite`
 * and PostgreSQL (`pg`), the store conformance suite on `bun:sqlite`, run by `bun test`; and the
 * docs' Bun server files, type-checked by tsc with Bun's declarations (`bun-types`) and run with
 * `bun run`. Bun comes from the npm registry
 * (test-support/runtimes.ts; `pnpm run test:prepare` fetches it first): when it cannot be
 * installed, every test here fails.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prepareRuntime, RUNTIMES, type Runtime } from '@webhook-idempotency/test-support/runtimes';
import { planWebSuite } from '../../packages/adapter-conformance/src/web/cases';
import { conformanceCases } from '../../packages/core/src/testing';
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
const { version } = RUNTIMES.bun;
const webTests = planWebSuite(['bun:sqlite', 'pg']).map((planned) => planned.name);
const storeTests = conformanceCases.map(
  (c) => `Store conformance: SqlStore (bun:sqlite file) › ${c.group} › ${c.name}`,
);
const GUARD_CASES = 'bun:sqlite through IdempotencyGuard (transactional)';

let bun: Runtime | undefined;
let project = '';
let report: RunnerReport | undefined;
/** What tsc printed for the docs' Bun files when they failed to type-check; '' when they pass. */
let checked: string | undefined;

beforeAll(async () => {
  [bun, project] = await Promise.all([prepareRuntime('bun'), runtimeProject()]);
  const [pgUrl] = await Promise.all([
    pgDatabase('wi_runtime_bun'),
    bundleInto(
      project,
      'packages/adapter-conformance/src/web/bun.ts',
      'web.bun.test.mjs',
      'bun:test',
    ),
    bundleInto(project, 'packages/sql/test/bun-sqlite.bun.ts', 'bun-sqlite.bun.test.mjs'),
  ]);
  // The type check of the docs' files (tsc with Bun's declarations) runs beside the suite.
  [report, checked] = await Promise.all([
    runRunner(
      bun,
      project,
      [
        'test',
        '--timeout=30000', // jest's testTimeout in jest.config.ts
        '--reporter=junit',
        '--reporter-outfile=bun-report.xml',
        './web.bun.test.mjs',
        './bun-sqlite.bun.test.mjs',
      ],
      'bun-report.xml',
      { WI_RUNTIME_PG_URL: pgUrl },
    ),
    run(
      process.execPath,
      [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bun.json'],
      { cwd: project },
    ).then(
      () => '',
      (error: { stdout?: string; stderr?: string }) =>
        `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
    ),
  ]);
}, 15 * 60_000);

describe(`Bun ${version}: the HTTP suite on Bun.serve (bun test)`, () => {
  it.each(webTests)('%s', (name) => expectPassed(report, name));
});

describe(`Bun ${version}: the store conformance suite on bun:sqlite (bun test)`, () => {
  it.each(storeTests)('%s', (name) => expectPassed(report, name));

  it('bun:sqlite through IdempotencyGuard: every transactional case ran and passed', () => {
    const names = [...(report?.results.keys() ?? [])].filter((name) =>
      name.startsWith(GUARD_CASES),
    );
    expect(names).toHaveLength(5);
    for (const name of names) expectPassed(report, name);
  });
});

describe(`Bun ${version}: the docs' server files (tsc with bun-types, bun run)`, () => {
  const secret = 'whsec_runtime_bun';

  it("type-check against the tarballs' type declarations and Bun's", () => {
    expect(checked).toBe('');
  });

  it('docs/adapters/fetch.md: Bun.serve with bun:sqlite answers a Stripe event once, its redelivery from the receipt, a forged one 401; one payment row', async () => {
    const file = join(project, 'bun-fetch.db');
    const server = await startServer(bun!, ['run', 'bun-fetch.ts'], project, {
      DATABASE_FILE: file,
      STRIPE_WEBHOOK_SECRET: secret,
    });
    try {
      await expectHandledOnce(
        server,
        '/webhooks/stripe',
        stripeDelivery(secret, 'pi_bun'),
        stripeDelivery('whsec_forged', 'pi_bun'),
      );
    } finally {
      await server.stop();
    }
    expect(sqliteRows(file, 'payments')).toBe(1);
  });

  it('docs/adapters/hono.md: Hono on Bun.serve with pg answers a GitHub push once, its redelivery from the receipt, a forged one 401; one push row', async () => {
    const url = await pgDatabase('wi_runtime_bun_docs');
    const server = await startServer(bun!, ['run', 'bun-hono.ts'], project, {
      DATABASE_URL: url,
      GITHUB_WEBHOOK_SECRET: secret,
    });
    try {
      await expectHandledOnce(
        server,
        '/webhooks/github',
        githubDelivery(secret, 'bun-delivery-1'),
        githubDelivery('forged', 'bun-delivery-1'),
      );
    } finally {
      await server.stop();
    }
    expect(await pgRows(url, 'pushes')).toBe(1);
  });

  // Bun closes the connection under a sender still writing a body the handler left unread: the
  // adapters read off the rest (within 16 MiB, a 1 s pause and 10 s) before the 413 ends.
  it(`docs/adapters/fetch.md and hono.md: a 2 MiB delivery over the default limit is answered 413, and the sender reads it every time (${OVERSIZED_ROUNDS} rounds of 4 kinds of sender, to each server)`, async () => {
    const url = await pgDatabase('wi_runtime_bun_oversized');
    const fetchServer = await startServer(bun!, ['run', 'bun-fetch.ts'], project, {
      DATABASE_FILE: join(project, 'bun-fetch-oversized.db'),
      STRIPE_WEBHOOK_SECRET: secret,
    });
    try {
      await expectOversizedRefused(fetchServer, '/webhooks/stripe');
    } finally {
      await fetchServer.stop();
    }
    const honoServer = await startServer(bun!, ['run', 'bun-hono.ts'], project, {
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
