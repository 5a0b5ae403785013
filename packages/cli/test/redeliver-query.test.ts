/**
 * `redeliver` by query against PostgreSQL, MariaDB and a SQLite file, through the command (see helpers/cli.ts),
 * over deliveries the real SqlInbox stored, leased, retried, buried and completed: each filter
 * narrows the set; a dry run changes nothing, and the run then changes exactly the rows it listed
 * (the tables compared before and after); a delivery that moved between the dry run and the run
 * (`--plan`) is left as it is and named; done ones only with `--force`; no run without `--yes`
 * when stdin is not a terminal. Each case has its own inbox table (`--inbox-table`).
 */
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IdempotencyGuard } from '@webhook-idempotency/core';
import {
  mysqlDatabase,
  pgDatabase,
  sqliteFile,
} from '@webhook-idempotency/sql/test/helpers/databases';
import {
  type Connected,
  connect,
  type Target,
} from '@webhook-idempotency/sql/test/helpers/targets';
import { ExitCode } from '../src';
import { cli } from './helpers/cli';

const targets: Array<[string, () => Promise<Target>]> = [
  ['PostgreSQL', async () => ({ dialect: 'postgres', url: await pgDatabase('wi_cli_bulk') })],
  ['MariaDB', async () => ({ dialect: 'mysql', url: await mysqlDatabase('wi_cli_bulk') })],
  ['SQLite file', async () => ({ dialect: 'sqlite', url: sqliteFile('cli-bulk') })],
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(targets)('redeliver by query on %s', (_name, open) => {
  let target: Target;
  let connected: Connected;
  let url: string;

  beforeAll(async () => {
    target = await open();
    url = target.dialect === 'sqlite' ? `sqlite:${target.url}` : target.url;
    connected = connect(target);
  });
  afterAll(() => connected.close());

  /**
   * A table of its own, holding (in receipt order, a few ms apart): stripe d1, d2 dead; github g1
   * dead; stripe w1 waiting an hour after a failure; stripe ok1 done (with a completed receipt);
   * stripe p1 processing; stripe due1 pending and due; stripe d3 dead.
   */
  async function seed(table: string): Promise<SqlInbox> {
    await InboxSchema.createTable(connected.db, { table });
    await Schema.createTable(connected.db, { table: `${table}_receipts` });
    const inbox = new SqlInbox(connected.db, { table });
    const ids = [
      ['stripe', 'd1'],
      ['stripe', 'd2'],
      ['github', 'g1'],
      ['stripe', 'w1'],
      ['stripe', 'ok1'],
      ['stripe', 'p1'],
      ['stripe', 'due1'],
      ['stripe', 'd3'],
    ] as const;
    for (const [provider, externalId] of ids) {
      await inbox.enqueue({
        provider,
        externalId,
        orderingKey: null,
        headers: {},
        body: Buffer.from(`{"id":"${externalId}"}`),
      });
      await pause(5); // distinct received times, for the time range
    }
    const leased = await inbox.lease({
      providers: ['stripe', 'github'],
      limit: 20,
      leaseMs: 600_000,
    });
    const guard = new IdempotencyGuard(new SqlStore(connected.db, { table: `${table}_receipts` }));
    for (const d of leased) {
      if (['d1', 'd2', 'g1', 'd3'].includes(d.externalId))
        await inbox.bury(d, { error: 'Error: poison' });
      if (d.externalId === 'w1') await inbox.retry(d, { delayMs: 3_600_000, error: 'Error: 503' });
      if (d.externalId === 'due1') await inbox.giveBack(d, { delayMs: 0 });
      if (d.externalId === 'ok1') {
        await guard.run({ provider: 'stripe', externalId: 'ok1' }, async () => ({ ok: true }));
        await inbox.complete(d);
      }
    }
    return inbox;
  }

  /** Every row of the table as `provider/id:status:leases:failures:due-later?`. */
  async function rows(table: string): Promise<Map<string, string>> {
    const now = Date.now();
    const all = await new SqlInbox(connected.db, { table }).list({ limit: 1000 });
    return new Map(
      all.map((d) => [
        `${d.provider}/${d.externalId}`,
        `${d.status}:${d.leases}:${d.failures}:${d.availableAt.getTime() > now ? 'later' : 'due'}`,
      ]),
    );
  }
  const changedKeys = (before: Map<string, string>, after: Map<string, string>) =>
    [...before.keys()].filter((key) => before.get(key) !== after.get(key)).sort();

  const run = (table: string, ...args: string[]) =>
    cli(['redeliver', '--inbox-table', table, '--table', `${table}_receipts`, ...args], {
      env: { DATABASE_URL: url },
    });
  const listed = async (table: string, ...args: string[]) => {
    const dry = await run(table, '--dry-run', '--json', ...args);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    return (JSON.parse(dry.stdout).deliveries as Array<{ provider: string; externalId: string }>)
      .map((d) => `${d.provider}/${d.externalId}`)
      .sort();
  };

  it('each filter narrows the set: status, provider, received since and until; any page size', async () => {
    const table = 'bulk_filters';
    const inbox = await seed(table);
    const received = async (id: string) =>
      (await inbox.find('stripe', id))!.receivedAt.toISOString();
    expect(await listed(table, '--status', 'dead')).toEqual([
      'github/g1',
      'stripe/d1',
      'stripe/d2',
      'stripe/d3',
    ]);
    expect(await listed(table, '--status', 'dead', '--provider', 'stripe')).toEqual([
      'stripe/d1',
      'stripe/d2',
      'stripe/d3',
    ]);
    const since = ['--since', await received('d2')];
    expect(await listed(table, '--status', 'dead', '--provider', 'stripe', ...since)).toEqual([
      'stripe/d2',
      'stripe/d3',
    ]);
    const until = ['--until', await received('d3')];
    expect(await listed(table, '--status', 'dead', ...since, ...until)).toEqual([
      'github/g1',
      'stripe/d2',
    ]);
    expect(await listed(table, '--status', 'waiting')).toEqual(['stripe/w1']);
    expect(await listed(table, '--status', 'done')).toEqual(['stripe/ok1']);
    expect(await listed(table, '--status', 'dead,waiting,done', '--provider', 'github')).toEqual([
      'github/g1',
    ]);
    // A page of one row at a time reads the same set through the cursor.
    expect(await listed(table, '--status', 'dead,waiting,done', '--page-size', '1')).toEqual(
      await listed(table, '--status', 'dead,waiting,done'),
    );
    expect(await listed(table, '--status', 'dead', '--since', '1h', '--until', '30m')).toEqual([]);
  });

  it('a dry run changes nothing; the run then changes exactly the rows it listed', async () => {
    const table = 'bulk_exact';
    await seed(table);
    const query = ['--status', 'dead,waiting', '--provider', 'stripe'];
    const before = await rows(table);
    const dry = await run(table, ...query, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^ *id +provider +external id +received +status now → after\n/);
    expect(dry.stdout).toMatch(/ stripe +w1 +\d+s ago +pending \(due in 59m\) → due now\n/);
    expect(dry.stdout).toMatch(/ stripe +d1 +\d+s ago +dead → pending\n/);
    expect(dry.stdout).toMatch(/Dry run: would redeliver 4 deliveries; nothing was changed\.\n$/);
    expect(await rows(table)).toEqual(before);

    const plan = await listed(table, ...query);
    const real = await run(table, ...query, '--yes', '--json');
    expect(real.code).toBe(ExitCode.OK);
    const after = await rows(table);
    expect(changedKeys(before, after)).toEqual(plan);
    expect(JSON.parse(real.stdout)).toMatchObject({ matched: 4, redelivered: 4, left: [] });
    for (const key of plan) expect(after.get(key)).toMatch(/^pending:\d+:\d+:due$/);
    expect(after.get('stripe/ok1')).toBe(before.get('stripe/ok1'));
  });

  it('a delivery that moved between the dry run and the run (--plan) is left as it is and named', async () => {
    const table = 'bulk_moved';
    const inbox = await seed(table);
    const dry = await run(table, '--status', 'dead', '--provider', 'stripe', '--dry-run', '--json');
    const file = join(sqliteFile('plan').replace(/[^/]+$/, ''), 'plan.json');
    writeFileSync(file, dry.stdout);
    // Meanwhile d2 is retried by someone else, fails again and dies again (lease 2).
    const seen = (await inbox.find('stripe', 'd2'))!;
    await inbox.redeliver('stripe', 'd2', { status: 'dead', leases: seen.leases });
    const [again] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 600_000 });
    expect(again?.externalId).toBe('d2');
    await inbox.bury(again!, { error: 'Error: poison again' });
    const before = await rows(table);

    const real = await run(table, '--plan', file, '--yes');
    expect(real.code).toBe(ExitCode.LEFT);
    expect(real.stdout).toBe(
      'Redelivered 2 deliveries: pending, due now.\n' +
        'Left as it is, changed since listed: 1.\n' +
        '  stripe d2 died again meanwhile (lease 2)\n',
    );
    const after = await rows(table);
    expect(changedKeys(before, after)).toEqual(['stripe/d1', 'stripe/d3']);
    expect(after.get('stripe/d2')).toBe(before.get('stripe/d2'));
    expect(after.get('stripe/d2')).toMatch(/^dead:2:1:/);
  });

  it('done ones only with --force (their receipts deleted); never without --yes off a terminal', async () => {
    const table = 'bulk_done';
    await seed(table);
    const before = await rows(table);
    const noTty = await run(table, '--status', 'dead');
    expect(noTty.code).toBe(ExitCode.USAGE);
    expect(noTty.stderr).toMatch(
      /redeliver by query asks for confirmation on a terminal, and stdin is not one: pass --yes/,
    );
    const noForce = await run(table, '--status', 'done', '--yes');
    expect(noForce.code).toBe(ExitCode.REFUSED);
    expect(noForce.stderr).toMatch(/Pass --force to redeliver them anyway\./);
    expect(await rows(table)).toEqual(before);

    const forced = await run(table, '--status', 'done', '--force', '--yes');
    expect(forced).toMatchObject({
      code: 0,
      stdout: 'Redelivered 1 delivery: pending, due now.\n',
    });
    expect(changedKeys(before, await rows(table))).toEqual(['stripe/ok1']);
    const receipts = await connected.sql.query(
      `SELECT status FROM ${table}_receipts WHERE external_id = ?`,
      ['ok1'],
    );
    expect(receipts.rows).toEqual([]);
  });

  it('bad combinations are usage errors', async () => {
    const table = 'bulk_usage';
    await seed(table);
    for (const args of [
      ['--status', 'failed'],
      ['stripe', 'd1', '--status', 'dead'],
      ['--dry-run'],
      ['--status', 'dead', '--plan', 'x.json'],
      ['--since', 'yesterday', '--status', 'dead'],
    ])
      expect((await run(table, ...args)).code).toBe(ExitCode.USAGE);
  });
});
