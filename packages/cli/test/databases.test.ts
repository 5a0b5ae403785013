/**
 * The command against PostgreSQL, MariaDB and a SQLite file (its first commands through the real
 * entry point in a child process, the rest through `run` in this process: see helpers/cli.ts), over
 * receipts the real SqlStore claimed, completed and failed, and inbox deliveries the real SqlInbox
 * stored, leased, retried, buried and completed, and outbox messages recorded by `Outbox.add` in the
 * outbox table (an inbox-shaped table: `SqlInbox` on `webhook_outbox`) and sent, retried and
 * buried as a dispatcher does: the same cases on each database.
 */
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import { Outbox } from '@webhook-idempotency/core/outbox';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import { ExitCode } from '../src';
import {
  mysqlDatabase,
  pgDatabase,
  sqliteFile,
} from '@webhook-idempotency/sql/test/helpers/databases';
import { httpResponse, seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { connect, type Target } from '@webhook-idempotency/sql/test/helpers/targets';
import { cli } from './helpers/cli';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const targets: Array<[string, () => Promise<{ target: Target; url: string }>]> = [
  [
    'PostgreSQL',
    async () => {
      const url = await pgDatabase('wi_cli');
      return { target: { dialect: 'postgres', url }, url };
    },
  ],
  [
    'MariaDB',
    async () => {
      const url = await mysqlDatabase('wi_cli');
      return { target: { dialect: 'mysql', url: url.replace(/^mysql:/, 'mariadb:') }, url };
    },
  ],
  [
    'SQLite file',
    async () => {
      const file = sqliteFile('cli');
      return { target: { dialect: 'sqlite', url: file }, url: `sqlite:${file}` };
    },
  ],
];

describe.each(targets)('webhook-idempotency on %s', (_name, open) => {
  let url: string;
  let target: Target;
  const run = (...args: string[]) => cli(args, { env: { DATABASE_URL: url } });
  /** The real entry point in a child process: its connection closed, it exits by itself. */
  const runProcess = (...args: string[]) =>
    cli(args, { env: { DATABASE_URL: url }, process: true });

  beforeAll(async () => {
    ({ url, target } = await open());
    if (target.dialect === 'mysql') url = target.url; // mariadb:// is accepted too
  });

  it('says to run migrate when the table is missing, then creates it once', async () => {
    const missing = await runProcess('status');
    expect(missing.code).toBe(ExitCode.TABLE_MISSING);
    expect(missing.stderr).toMatch(
      /Table webhook_receipts does not exist in .*\. Create it with: webhook-idempotency migrate\n$/,
    );
    // migrate needs no table; a SQLite file is created.
    expect(await runProcess('migrate')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Created table webhook_receipts and its indexes in /),
    });
    const again = await run('migrate', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      dialect: target.dialect,
      table: 'webhook_receipts',
      created: false,
      indexesAdded: [],
      tablesAdded: [],
    });
  });

  describe('over seeded receipts', () => {
    beforeAll(async () => {
      const connected = connect({
        ...target,
        url: target.dialect === 'mysql' ? url.replace(/^mariadb:/, 'mysql:') : target.url,
      });
      try {
        await Schema.createTable(connected.db); // as migrate did, for a filtered run (-t) too
        await seedReceipts(connected.db, 'webhook_receipts', [
          { provider: 'github', externalId: 'd-1', status: 'completed', ageMs: HOUR, tookMs: 120 },
          {
            provider: 'github',
            externalId: 'd-2',
            status: 'failed',
            ageMs: 10 * MINUTE,
            tookMs: 2100,
            error: 'Error: upstream answered 502',
          },
          { provider: 'github', externalId: 'd-3', status: 'processing', ageMs: 12 * MINUTE },
          {
            provider: 'stripe',
            externalId: 'evt_1',
            status: 'completed',
            ageMs: 3 * DAY,
            tookMs: 80,
            response: httpResponse(200, { received: true }),
          },
          { provider: 'stripe', externalId: 'evt_2', status: 'processing', ageMs: 2 * MINUTE },
        ]);
      } finally {
        await connected.close();
      }
    });

    it('status --json: counts, stuck claims, handler times and the failure share', async () => {
      const { code, stdout } = await run('status', '--json');
      expect(code).toBe(0);
      const report = JSON.parse(stdout);
      expect(report).toEqual({
        table: 'webhook_receipts',
        staleAfterMs: 300_000,
        providers: [
          {
            provider: 'github',
            processing: 1,
            completed: 1,
            failed: 1,
            stuck: 1,
            oldestProcessingAgeMs: expect.any(Number),
          },
          {
            provider: 'stripe',
            processing: 1,
            completed: 1,
            failed: 0,
            stuck: 0,
            oldestProcessingAgeMs: expect.any(Number),
          },
        ],
        totals: {
          provider: '*',
          processing: 2,
          completed: 2,
          failed: 1,
          stuck: 1,
          oldestProcessingAgeMs: expect.any(Number),
        },
        window: {
          sinceMs: DAY,
          completed: 1,
          failed: 1,
          failureShare: 0.5,
          handlerTime: { sampled: 1, p50Ms: 120, p95Ms: 120, p99Ms: 120, maxMs: 120 },
        },
        // No route set wrote here: counted, none.
        ignored: {
          table: 'webhook_receipts_ignored',
          since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/),
          counted: true,
          total: 0,
          events: [],
        },
      });
      expect(report.totals.oldestProcessingAgeMs).toBeGreaterThanOrEqual(12 * MINUTE);
    });

    it('status --fail-on-stuck exits non-zero with the count', async () => {
      const stuck = await run('status', '--fail-on-stuck');
      expect(stuck.code).toBe(ExitCode.STUCK);
      expect(stuck.stdout).toMatch(/^provider +processing +stuck +completed +failed/);
      expect(stuck.stderr).toBe(
        '1 receipt stuck in processing for more than 5m in webhook_receipts\n',
      );
    });

    it('list filters by status, stuck and window, in a table or as JSON', async () => {
      const stuck = await run('list', '--stuck', '--json');
      expect(stuck.code).toBe(0);
      expect(JSON.parse(stuck.stdout).receipts).toEqual([
        {
          provider: 'github',
          externalId: 'd-3',
          status: 'processing',
          attempts: 1,
          error: null,
          claimedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          finishedAt: null,
          claimAgeMs: expect.any(Number),
        },
      ]);
      const failed = await run('list', '--status', 'failed,completed', '--since', '2h');
      expect(failed.code).toBe(0);
      expect(failed.stdout.split('\n')).toEqual([
        expect.stringMatching(/^provider +id +status +attempts +claimed +took +error$/),
        expect.stringMatching(
          /^github +d-2 +failed +1 +10m ago +2\.1s +Error: upstream answered 502$/,
        ),
        expect.stringMatching(/^github +d-1 +completed +1 +1h ago +120ms$/),
        '',
      ]);
    });

    it('show prints a receipt with its stored answer; an unknown key exits NOT_FOUND', async () => {
      const shown = await run('show', 'stripe', 'evt_1');
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^stripe evt_1\nstatus +completed\nattempts +1\n/);
      expect(shown.stdout).toMatch(
        /\nstored answer\nHTTP 200\ncontent-type: application\/json; charset=utf-8\n\n\{\n {2}"received": true\n\}\n$/,
      );
      const none = await run('show', 'stripe', 'evt_404');
      expect(none).toMatchObject({
        code: ExitCode.NOT_FOUND,
        stderr: 'webhook-idempotency: No receipt stripe evt_404 in webhook_receipts.\n',
      });
    });

    it('release refuses a fresh claim, releases a stuck one, and then nothing is stuck', async () => {
      const fresh = await run('release', 'stripe', 'evt_2');
      expect(fresh.code).toBe(ExitCode.REFUSED);
      expect(fresh.stderr).toMatch(/claimed 2m ago, under --stale-after 5m\.\n.*--force/);
      const released = await run('release', 'github', 'd-3', '--json');
      expect(released.code).toBe(0);
      expect(JSON.parse(released.stdout)).toMatchObject({
        released: true,
        receipt: {
          status: 'failed',
          attempts: 1,
          error: expect.stringMatching(/released by hand/),
        },
      });
      expect((await run('status', '--fail-on-stuck')).code).toBe(0);
    });

    it('purge deletes finished receipts past the retention, never processing ones', async () => {
      const old = await run('purge', '--retention-days', '1', '--json');
      expect(old.code).toBe(0);
      expect(JSON.parse(old.stdout)).toEqual({
        table: 'webhook_receipts',
        deleted: 1,
        olderThanMs: DAY,
      });
      const all = await run(
        'purge',
        '--retention-days',
        '0',
        '--provider',
        'github',
        '--chunk-size',
        '1',
      );
      expect(all.code).toBe(0);
      expect(all.stdout).toBe(
        'Purging 3 finished github receipts from webhook_receipts.\n' +
          'deleted 1 of 3\ndeleted 2 of 3\ndeleted 3 of 3\nDeleted 3 receipts.\n',
      );
      const left = JSON.parse((await run('list', '--json')).stdout).receipts;
      expect(left.map((r: { externalId: string }) => r.externalId)).toEqual(['evt_2']);
    });
  });

  it('the inbox commands say to run migrate --inbox when the inbox table is missing; it creates it once', async () => {
    for (const args of [
      ['inbox', 'list'],
      ['inbox', 'dead', '--fail-on-dead'],
      ['redeliver', 'stripe', 'evt_1'],
    ]) {
      const missing = await run(...args);
      expect(missing.code).toBe(ExitCode.TABLE_MISSING);
      expect(missing.stderr).toMatch(
        /Table webhook_inbox does not exist in .*\. Create it with: webhook-idempotency migrate --inbox\n$/,
      );
    }
    const other = await run('inbox', 'list', '--inbox-table', 'other_inbox');
    expect(other.stderr).toMatch(/migrate --inbox --inbox-table other_inbox\n$/);
    const created = await run('migrate', '--inbox', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({
      dialect: target.dialect,
      table: 'webhook_receipts',
      created: expect.any(Boolean), // false after the first test; true in a filtered run
      indexesAdded: [],
      tablesAdded: [],
      inbox: { table: 'webhook_inbox', created: true },
    });
    expect((await run('migrate', '--inbox')).stdout).toMatch(
      /^Table webhook_receipts exists already in .*\nTable webhook_inbox exists already in /,
    );
  });

  describe('over inbox deliveries', () => {
    const handled: string[] = [];
    let guard: IdempotencyGuard<unknown>;
    let connected: ReturnType<typeof connect>;
    let inbox: SqlInbox;
    const key = (externalId: string) => ({ provider: 'stripe', externalId });

    beforeAll(async () => {
      connected = connect({
        ...target,
        url: target.dialect === 'mysql' ? url.replace(/^mariadb:/, 'mysql:') : target.url,
      });
      await InboxSchema.createTable(connected.db); // as migrate --inbox did, for a filtered run too
      await Schema.createTable(connected.db);
      inbox = new SqlInbox(connected.db);
      guard = new IdempotencyGuard(new SqlStore(connected.db), { staleAfterSeconds: 300 });
      const store = (provider: string, externalId: string) =>
        inbox.enqueue({
          provider,
          externalId,
          orderingKey: null,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ id: externalId, email: 'ada@example.com' })),
        });
      for (const id of ['evt_dead', 'evt_done', 'evt_wait', 'evt_new']) await store('stripe', id);
      await store('github', 'g-1');
      const [dead, done, wait] = await inbox.lease({
        providers: ['stripe'],
        limit: 3,
        leaseMs: 60_000,
      });
      await inbox.bury(dead!, { error: 'Error: no such customer' });
      // Handled through a real receipt, as the worker does.
      await guard.run(key('evt_done'), async () => handled.push('evt_done'));
      await inbox.complete(done!);
      await inbox.retry(wait!, { delayMs: 3_600_000, error: 'Error: upstream timeout' });
      await inbox.lease({ providers: ['github'], limit: 1, leaseMs: 600_000 });
    });
    afterAll(() => connected.close());

    it('inbox list and inbox show: the state of each delivery; the body only with --body', async () => {
      const listed = await run('inbox', 'list');
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n')).toEqual([
        expect.stringMatching(/^provider +id +status +leases +failures +due +last error$/),
        // Piped: every value whole.
        expect.stringMatching(/^stripe +evt_dead +dead +1 +1 +- +Error: no such customer$/),
        expect.stringMatching(/^stripe +evt_done +done +1 +0 +-$/),
        expect.stringMatching(/^stripe +evt_wait +pending +1 +1 +in 59m +Error: upstream timeout$/),
        expect.stringMatching(/^stripe +evt_new +pending +0 +0 +now$/),
        expect.stringMatching(/^github +g-1 +processing +1 +0 +lease 9m$/),
        '',
      ]);
      const pending = await run(
        'inbox',
        'list',
        '--status',
        'pending',
        '--provider',
        'stripe',
        '--json',
      );
      expect(JSON.parse(pending.stdout).deliveries).toEqual([
        expect.objectContaining({ externalId: 'evt_wait', status: 'pending', failures: 1 }),
        {
          id: expect.any(Number),
          provider: 'stripe',
          externalId: 'evt_new',
          orderingKey: null,
          status: 'pending',
          // The lease count, and its deprecated name for one minor version.
          leases: 0,
          attempts: 0,
          failures: 0,
          receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          availableAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          finishedAt: null,
          lastError: null,
          bodyBytes: 42,
        },
      ]);
      const bad = await run('inbox', 'list', '--status', 'failed');
      expect(bad.code).toBe(ExitCode.USAGE);
      expect(bad.stderr).toMatch(/Allowed choices are pending, processing, done, dead/);

      const shown = await run('inbox', 'show', 'stripe', 'evt_dead');
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(
        /^stripe evt_dead\nstatus +dead\nleases +1\nfailures +1\nreceived +\S+ \(\d+s ago\)\nfinished +\S+ \(\d+s ago\)\nlast error +Error: no such customer\n\nheaders\ncontent-type: application\/json\n\nbody: 43 bytes \(--body prints them\)\n$/,
      );
      expect(shown.stdout).not.toContain('ada@example.com');
      const body = await run('inbox', 'show', 'stripe', 'evt_dead', '--body', '--json');
      expect(JSON.parse(body.stdout).delivery).toMatchObject({
        status: 'dead',
        headers: { 'content-type': 'application/json' },
        body: '{"id":"evt_dead","email":"ada@example.com"}',
        encoding: 'utf8',
      });
      expect(
        JSON.parse((await run('inbox', 'show', 'stripe', 'evt_dead', '--json')).stdout).delivery,
      ).not.toHaveProperty('body');
      expect(await run('inbox', 'show', 'stripe', 'evt_404')).toMatchObject({
        code: ExitCode.NOT_FOUND,
        stderr: 'webhook-idempotency: No delivery stripe evt_404 in webhook_inbox.\n',
      });
    });

    it('inbox dead lists the dead letters; --fail-on-dead exits DEAD for cron', async () => {
      const dead = await run('inbox', 'dead', '--fail-on-dead', '--json');
      expect(dead.code).toBe(ExitCode.DEAD);
      expect(dead.stderr).toBe('1 dead delivery in webhook_inbox\n');
      expect(JSON.parse(dead.stdout)).toEqual({
        table: 'webhook_inbox',
        deliveries: [
          expect.objectContaining({ externalId: 'evt_dead', lastError: 'Error: no such customer' }),
        ],
      });
      const table = await run('inbox', 'dead');
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(
        /^provider +id +leases +failures +died +last error\nstripe +evt_dead +1 +1 +\d+s ago +Error: no such customer\n/,
      );
      const none = await run('inbox', 'dead', '--provider', 'github', '--fail-on-dead');
      expect(none).toMatchObject({ code: 0, stdout: 'No dead deliveries in webhook_inbox.\n' });
    });

    it('inbox retry: refuses processing and done; a waiting one due now; a dead one pending again', async () => {
      const processing = await run('inbox', 'retry', 'github', 'g-1');
      expect(processing.code).toBe(ExitCode.REFUSED);
      expect(processing.stderr).toMatch(/github g-1 is processing \(lease 1\): a worker has it\./);
      const done = await run('inbox', 'retry', 'stripe', 'evt_done');
      expect(done.code).toBe(ExitCode.REFUSED);
      expect(done.stderr).toMatch(
        /is done: .*\n.*webhook-idempotency redeliver stripe evt_done --force\n$/,
      );
      expect(await run('inbox', 'retry', 'stripe', 'evt_404')).toMatchObject({
        code: ExitCode.NOT_FOUND,
      });

      const waiting = await run('inbox', 'retry', 'stripe', 'evt_wait');
      expect(waiting).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(
          /^Retrying stripe evt_wait: pending, due now \(it was due in 59m; lease 2 next\)\.\n$/,
        ),
      });
      expect((await run('inbox', 'retry', 'stripe', 'evt_wait')).stdout).toMatch(
        /is pending and due already/,
      );
      const dead = await run('inbox', 'retry', 'stripe', 'evt_dead', '--json');
      expect(dead.code).toBe(0);
      expect(JSON.parse(dead.stdout)).toMatchObject({
        retried: true,
        previous: 'dead',
        delivery: { status: 'pending', leases: 1, failures: 0, finishedAt: null },
      });
      // Both are due now: a worker's next claim takes them.
      const claimed = await inbox.lease({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
      expect(claimed.map((d) => [d.externalId, d.leases])).toEqual([
        ['evt_dead', 2],
        ['evt_wait', 2],
        ['evt_new', 1],
      ]);
      for (const delivery of claimed) await inbox.bury(delivery, { error: 'Error: again' });
    });

    it('redeliver: a dead one at once; a done one only with --force, which forgets its receipt so the handler runs again', async () => {
      const dead = await run('redeliver', 'stripe', 'evt_dead');
      expect(dead).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(
          /^Redelivered stripe evt_dead: dead → pending, due now \(lease 3 next\)\.\nIts failure count starts again from 0\.\n$/,
        ),
      });
      const pending = await run('redeliver', 'stripe', 'evt_dead');
      expect(pending.code).toBe(ExitCode.REFUSED);
      expect(pending.stderr).toMatch(
        /stripe evt_dead is pending, not finished: nothing to redeliver/,
      );

      const refused = await run('redeliver', 'stripe', 'evt_done', '--json');
      expect(refused.code).toBe(ExitCode.REFUSED);
      expect(JSON.parse(refused.stdout)).toMatchObject({
        redelivered: false,
        reason: 'needs-force',
      });
      expect(refused.stderr).toMatch(
        /its effect happens a second time\nunless the handler is itself idempotent\. Pass --force/,
      );
      expect((await inbox.find('stripe', 'evt_done'))!.status).toBe('done');
      expect(await guard.run(key('evt_done'), async () => handled.push('again'))).toMatchObject({
        isReplay: true,
      });

      const forced = await run('redeliver', 'stripe', 'evt_done', '--force', '--json');
      expect(forced.code).toBe(0);
      expect(JSON.parse(forced.stdout)).toMatchObject({
        redelivered: true,
        previous: 'done',
        receiptForgotten: true,
        delivery: { status: 'pending', leases: 1, failures: 0 },
      });
      // What the worker does next: the receipt is gone, so the handler runs again.
      expect(
        await guard.run(key('evt_done'), async () => handled.push('evt_done again')),
      ).toMatchObject({
        isReplay: false,
      });
      expect(handled).toEqual(['evt_done', 'evt_done again']);
      expect(await run('redeliver', 'stripe', 'evt_404')).toMatchObject({
        code: ExitCode.NOT_FOUND,
      });
    });
  });
  it('the outbox commands say to run migrate --outbox when the outbox table is missing; it creates it once', async () => {
    for (const args of [
      ['outbox', 'list'],
      ['outbox', 'dead', '--fail-on-dead'],
      ['outbox', 'show', 'http', 'k'],
    ]) {
      const missing = await run(...args);
      expect(missing.code).toBe(ExitCode.TABLE_MISSING);
      expect(missing.stderr).toMatch(
        /Table webhook_outbox does not exist in .*\. Create it with: webhook-idempotency migrate --outbox\n$/,
      );
    }
    const other = await run('outbox', 'list', '--outbox-table', 'other_outbox');
    expect(other.stderr).toMatch(/migrate --outbox --outbox-table other_outbox\n$/);
    const created = await run('migrate', '--outbox', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({
      dialect: target.dialect,
      table: 'webhook_receipts',
      created: expect.any(Boolean),
      indexesAdded: [],
      tablesAdded: [],
      outbox: { table: 'webhook_outbox', created: true },
    });
    expect((await run('migrate', '--outbox')).stdout).toMatch(
      /^Table webhook_receipts exists already in .*\nTable webhook_outbox exists already in /,
    );
  });

  describe('over outbox messages', () => {
    let connected: ReturnType<typeof connect>;
    let outboxTable: SqlInbox;
    /** Each message's effect key, by its name. */
    const keys: Record<string, string> = {};

    beforeAll(async () => {
      connected = connect({
        ...target,
        url: target.dialect === 'mysql' ? url.replace(/^mariadb:/, 'mysql:') : target.url,
      });
      await InboxSchema.createTable(connected.db, { table: 'webhook_outbox' }); // as migrate --outbox
      outboxTable = new SqlInbox(connected.db, { table: 'webhook_outbox' });
      // The rows Outbox.add writes, each under its run's effect key. (SqlInbox.enqueue stands in for
      // the transactional enqueueIn here: these commands read the rows, not how they committed.)
      const outbox = new Outbox<unknown>({
        store: { enqueueIn: (delivery) => outboxTable.enqueue(delivery) },
      });
      const guard = new IdempotencyGuard(new InMemoryStore());
      await guard.run({ provider: 'stripe', externalId: 'evt_paid' }, async (context) => {
        const run = { ...context, transaction: {} };
        keys.refund = await outbox.add(run, {
          name: 'refund',
          sender: 'http',
          payload: { url: 'https://payments.test/refunds', json: { amount: 1200 } },
        });
        keys.receipt = await outbox.add(run, {
          name: 'receipt-email',
          sender: 'email',
          payload: { to: 'ada@example.com', subject: 'Your receipt' },
        });
      });
      await guard.run({ provider: 'github', externalId: 'gh-1' }, async (context) => {
        const run = { ...context, transaction: {} };
        keys.ping = await outbox.add(run, { name: 'ping', sender: 'http', payload: { url: 'x' } });
        keys.wait = await outbox.add(run, { name: 'wait', sender: 'email', payload: { to: 'b' } });
      });
      // As a dispatcher ends its leases: refund dead (a 400), the email sent, ping in flight,
      // wait failed once and backing off.
      const [refund] = await outboxTable.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
      await outboxTable.bury(refund!, { error: 'PermanentSendFailure: HTTP 400 <no such charge>' });
      const [sent, wait] = await outboxTable.lease({
        providers: ['email'],
        limit: 2,
        leaseMs: 60_000,
      });
      await outboxTable.complete(sent!);
      await outboxTable.retry(wait!, { delayMs: 3_600_000, error: 'Error: SMTP 421 try later' });
      await outboxTable.lease({ providers: ['http'], limit: 1, leaseMs: 600_000 });
    });
    afterAll(() => connected.close());

    it('outbox list and show: sender, key, effect name, receipt and state; the payload only with --payload', async () => {
      const listed = await run('outbox', 'list');
      expect(listed.code).toBe(0);
      const row = (...cells: string[]) =>
        expect.stringMatching(new RegExp(`^${cells.join(' +')}$`));
      expect(listed.stdout.split('\n')).toEqual([
        row('sender', 'key', 'name', 'receipt', 'status', 'failures', 'due', 'last error'),
        row(
          'http',
          keys.refund!,
          'refund',
          'stripe evt_paid',
          'dead',
          '1',
          '-',
          'PermanentSendFailure: HTTP 400 <no such charge>',
        ),
        row('email', keys.receipt!, 'receipt-email', 'stripe evt_paid', 'done', '0', '-'),
        row('http', keys.ping!, 'ping', 'github gh-1', 'processing', '0', 'lease 9m'),
        row(
          'email',
          keys.wait!,
          'wait',
          'github gh-1',
          'pending',
          '1',
          'in 59m',
          'Error: SMTP 421 try later',
        ),
        '',
      ]);
      const email = await run(
        'outbox',
        'list',
        '--sender',
        'email',
        '--status',
        'pending',
        '--json',
      );
      expect(JSON.parse(email.stdout)).toEqual({
        messages: [
          {
            id: expect.any(Number),
            sender: 'email',
            key: keys.wait,
            name: 'wait',
            receipt: { provider: 'github', externalId: 'gh-1' },
            status: 'pending',
            failures: 1,
            availableAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            finishedAt: null,
            lastError: 'Error: SMTP 421 try later',
            leases: 1,
            recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            payloadBytes: 10,
          },
        ],
      });

      const shown = await run('outbox', 'show', 'email', keys.receipt!);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(
        new RegExp(
          `^email ${keys.receipt}\nname +receipt-email\nreceipt +stripe evt_paid\nstatus +done\nleases +1\nfailures +0\nrecorded +\\S+ \\(\\d+s ago\\)\nfinished +\\S+ \\(\\d+s ago\\)\n\npayload: 49 bytes \\(--payload prints them\\)\n$`,
        ),
      );
      expect(shown.stdout).not.toContain('ada@example.com');
      const payload = await run('outbox', 'show', 'email', keys.receipt!, '--payload', '--json');
      expect(JSON.parse(payload.stdout).message).toMatchObject({
        sender: 'email',
        name: 'receipt-email',
        status: 'done',
        payload: '{"to":"ada@example.com","subject":"Your receipt"}',
        encoding: 'utf8',
      });
      expect(JSON.parse(payload.stdout).message).not.toHaveProperty('headers');
      expect(await run('outbox', 'show', 'http', 'no-such-key')).toMatchObject({
        code: ExitCode.NOT_FOUND,
        stderr: 'webhook-idempotency: No message http no-such-key in webhook_outbox.\n',
      });
    });

    it('outbox dead lists the dead messages with their receipts; --fail-on-dead exits DEAD for cron', async () => {
      const dead = await run('outbox', 'dead', '--fail-on-dead');
      expect(dead.code).toBe(ExitCode.DEAD);
      expect(dead.stderr).toBe('1 dead message in webhook_outbox\n');
      expect(dead.stdout.split('\n')).toEqual([
        expect.stringMatching(/^sender +key +name +receipt +failures +died +last error$/),
        expect.stringMatching(
          new RegExp(
            `^http +${keys.refund} +refund +stripe evt_paid +1 +\\d+s ago +PermanentSendFailure`,
          ),
        ),
        'Put one back with: webhook-idempotency outbox retry <sender> <key>',
        '',
      ]);
      const none = await run('outbox', 'dead', '--sender', 'email', '--fail-on-dead', '--json');
      expect(none.code).toBe(0);
      expect(JSON.parse(none.stdout)).toEqual({ table: 'webhook_outbox', messages: [] });
    });

    it('outbox retry: refuses an in-flight and a sent message; puts a dead one back; --all-dead by sender', async () => {
      const flying = await run('outbox', 'retry', 'http', keys.ping!);
      expect(flying.code).toBe(ExitCode.REFUSED);
      expect(flying.stderr).toMatch(/is processing \(lease 1\): a dispatcher has it\./);
      const sent = await run('outbox', 'retry', 'email', keys.receipt!);
      expect(sent).toMatchObject({
        code: ExitCode.REFUSED,
        stderr: `webhook-idempotency: email ${keys.receipt} is done: it was sent; nothing to retry.\n`,
      });
      const usage = await run('outbox', 'retry', 'http');
      expect(usage.code).toBe(ExitCode.USAGE);
      expect(usage.stderr).toMatch(/outbox retry needs <sender> <key>, or --all-dead\./);

      const dry = await run('outbox', 'retry', '--all-dead', '--sender', 'http', '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(
        /^sender +key +name +receipt +died +last error\nhttp .* refund +stripe evt_paid .*\nDry run: would retry 1 dead message of http; nothing was changed\.\n$/,
      );
      const none = await run('outbox', 'retry', '--all-dead', '--sender', 'email');
      expect(none.stdout).toBe('No dead messages of email in webhook_outbox match.\n');

      const retried = await run('outbox', 'retry', 'http', keys.refund!, '--json');
      expect(retried.code).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({
        retried: true,
        previous: 'dead',
        message: { sender: 'http', name: 'refund', status: 'pending', failures: 0, leases: 1 },
      });
      // Due now: a dispatcher's next lease takes it, under the same key.
      const [again] = await outboxTable.lease({ providers: ['http'], limit: 5, leaseMs: 60_000 });
      expect(again).toMatchObject({ externalId: keys.refund, leases: 2 });
    });
  });
});
