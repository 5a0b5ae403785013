/**
 * `inbox retry --all-dead` on a SQLite file the real SqlInbox filled: every dead delivery back to
 * pending (fresh failure budget), filtered by `--provider` and `--since`; `--dry-run` prints what
 * it would retry and changes nothing; the single-delivery form and bad combinations are usage errors.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { ExitCode } from '../src';
import { cli } from './helpers/cli';

let file: string;
const run = (...args: string[]) => cli(args, { env: { DATABASE_URL: `sqlite:${file}` } });
const statuses = () => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT provider, external_id, status, failures FROM webhook_inbox ORDER BY id')
      .all()
      .map((r) => {
        const row = r as Record<string, unknown>;
        return `${row.provider}/${row.external_id}:${row.status}:${row.failures}`;
      });
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  file = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'cli-retry-all-')), 'app.db');
  const db = new Database(file);
  try {
    await InboxSchema.createTable(db);
    const inbox = new SqlInbox(db);
    const add = (provider: string, externalId: string) =>
      inbox.enqueue({
        provider,
        externalId,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    for (const id of ['s1', 's2', 's_old']) await add('stripe', id);
    await add('github', 'g1');
    await add('stripe', 'pending');
    const leased = await inbox.lease({
      providers: ['stripe', 'github'],
      limit: 4,
      leaseMs: 60_000,
    });
    for (const d of leased) await inbox.bury(d, { error: 'poison' });
    // s_old died two hours ago.
    db.prepare(
      "UPDATE webhook_inbox SET finished_at = datetime('now', '-2 hours') WHERE external_id = 's_old'",
    ).run();
  } finally {
    db.close();
  }
});

it('--dry-run prints what it would retry and changes nothing', async () => {
  const before = statuses();
  const dry = await run('inbox', 'retry', '--all-dead', '--provider', 'stripe', '--dry-run');
  expect(dry.code).toBe(0);
  expect(dry.stdout).toMatch(/stripe\s+s1\s/);
  expect(dry.stdout).toMatch(/stripe\s+s_old\s/);
  expect(dry.stdout).not.toMatch(/g1/);
  expect(dry.stdout).toMatch(
    /Dry run: would retry 3 dead deliveries of stripe; nothing was changed\./,
  );
  expect(statuses()).toEqual(before);
});

it('retries the dead deliveries matching --provider and --since, then the rest', async () => {
  const recent = await run(
    'inbox',
    'retry',
    '--all-dead',
    '--provider',
    'stripe',
    '--since',
    '1h',
    '--json',
  );
  expect(recent.code).toBe(0);
  expect(JSON.parse(recent.stdout)).toMatchObject({ dryRun: false, matched: 2, retried: 2 });
  expect(statuses()).toEqual([
    'stripe/s1:pending:0',
    'stripe/s2:pending:0',
    'stripe/s_old:dead:1',
    'github/g1:dead:1',
    'stripe/pending:pending:0',
  ]);
  const rest = await run('inbox', 'retry', '--all-dead');
  expect(rest.code).toBe(0);
  expect(rest.stdout).toMatch(/Retried 2 dead deliveries: dead → pending/);
  expect(statuses().filter((s) => s.includes(':dead:'))).toEqual([]);
  expect((await run('inbox', 'retry', '--all-dead')).stdout).toMatch(
    /No dead deliveries in webhook_inbox match\./,
  );
});

it('refuses bad combinations as usage errors', async () => {
  expect((await run('inbox', 'retry', '--all-dead', 'stripe', 's1')).code).toBe(ExitCode.USAGE);
  expect((await run('inbox', 'retry', 'stripe')).code).toBe(ExitCode.USAGE);
  expect((await run('inbox', 'retry', 'stripe', 's1', '--dry-run')).code).toBe(ExitCode.USAGE);
  expect((await run('inbox', 'list', '--limit', '10001')).code).toBe(ExitCode.USAGE);
});
