/**
 * The command against PostgreSQL, MariaDB and a SQLite file, through its real entry point, over
 * receipts the real SqlStore claimed, completed and failed: the same cases on each database.
 */
import { Schema } from '@webhook-idempotency/sql';
import { ExitCode } from '../src';
import { mysqlDatabase, pgDatabase, sqliteFile } from '../../sql/test/helpers/databases';
import { httpResponse, seedReceipts } from '../../sql/test/helpers/seed';
import { connect, type Target } from '../../sql/test/helpers/targets';
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

  beforeAll(async () => {
    ({ url, target } = await open());
    if (target.dialect === 'mysql') url = target.url; // mariadb:// is accepted too
  });

  it('says to run migrate when the table is missing, then creates it once', async () => {
    const missing = await run('status');
    expect(missing.code).toBe(ExitCode.TABLE_MISSING);
    expect(missing.stderr).toMatch(
      /Table webhook_receipts does not exist in .*\. Create it with: webhook-idempotency migrate\n$/,
    );
    // migrate needs no table; a SQLite file is created.
    expect(await run('migrate')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Created table webhook_receipts and its indexes in /),
    });
    const again = await run('migrate', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      dialect: target.dialect,
      table: 'webhook_receipts',
      created: false,
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
        '--batch-size',
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
});
