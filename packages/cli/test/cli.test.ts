/**
 * What needs no database server: help for each command, usage errors, an unreachable server
 * (host shown, password never), a missing driver, and colour only on a terminal without NO_COLOR.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Schema } from '@webhook-idempotency/sql';
import { ExitCode, type OutputStream, run } from '../src';
import { seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { freePort } from '@webhook-idempotency/test-support/databases';
import { cli } from './helpers/cli';

const COMMANDS = [
  'status',
  'list',
  'show',
  'release',
  'purge',
  'migrate',
  'inbox',
  'redeliver',
  'outbox',
];

describe('webhook-idempotency --help', () => {
  it('lists every command, the exit codes, and fits 80 columns', async () => {
    const { code, stdout } = await cli(['--help'], { process: true });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: webhook-idempotency \[options\] \[command\]/);
    for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`\\n  ${command} `));
    expect(stdout).toMatch(/Exit codes: 0 ok, 1 error, 2 usage, 3 cannot connect, 4 table missing/);
    expect(stdout).toMatch(
      /6 refused \(release, inbox retry, outbox retry, redeliver[\s\S]*\n8 dead deliveries or messages/,
    );
    expect(Math.max(...stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(80);
  });

  it.each([
    ['status', ['--since <duration>', '--fail-on-stuck', '--json', '--url <url>']],
    ['list', ['--status <statuses>', '--provider <name>', '--stuck', '--since', '--limit <n>']],
    ['show', ['<provider>', '<id>', '--json']],
    ['release', ['<provider>', '<id>', '--force']],
    ['purge', ['--retention-days <days>', '--provider <name>', '--chunk-size <n>']],
    ['migrate', ['--inbox', '--outbox', '--print', '--dialect <dialect>']],
    [
      'inbox list',
      ['--status <status>', '--provider <name>', '--since <duration>', '--limit <n>', '--json'],
    ],
    ['inbox show', ['<provider>', '<id>', '--body', '--json']],
    [
      'inbox retry',
      ['[provider]', '[id]', '--all-dead', '--since <duration>', '--dry-run', '--json'],
    ],
    ['inbox dead', ['--provider <name>', '--limit <n>', '--fail-on-dead', '--json']],
    [
      'outbox list',
      ['--status <status>', '--sender <name>', '--since <duration>', '--limit <n>', '--json'],
    ],
    ['outbox show', ['<sender>', '<key>', '--payload', '--json']],
    [
      'outbox retry',
      ['[sender]', '[key]', '--all-dead', '--sender <name>', '--since <duration>', '--dry-run'],
    ],
    ['outbox dead', ['--sender <name>', '--limit <n>', '--fail-on-dead', '--json']],
    [
      'redeliver',
      [
        '[provider]',
        '[id]',
        '--force',
        '--status <statuses>',
        '--since <time>',
        '--until <time>',
        '--dry-run',
        '--plan <file>',
        '--yes',
        '--page-size <n>',
        '--json',
      ],
    ],
  ])('%s --help shows its own options and the global ones', async (command, flags) => {
    const { code, stdout } = await cli([...command.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: webhook-idempotency ${command} `));
    for (const flag of [
      ...flags,
      '--table <name>',
      '--inbox-table <name>',
      '--outbox-table <name>',
      '--stale-after <duration>',
    ])
      expect(stdout).toContain(flag);
  });

  it("purge --help leaves out --batch-size, --chunk-size's deprecated name", async () => {
    const { stdout } = await cli(['purge', '--help']);
    expect(stdout).toContain('--chunk-size <n>');
    expect(stdout).not.toContain('--batch-size');
  });
});

describe('errors a user can act on', () => {
  it('no database: names --url and DATABASE_URL', async () => {
    const { code, stderr } = await cli(['status']);
    expect(code).toBe(ExitCode.USAGE);
    expect(stderr).toMatch(/No database given: pass --url or set DATABASE_URL/);
  });

  it('an unknown status, an unsupported URL, a bad duration: usage errors', async () => {
    const status = await cli(['list', '--url', 'sqlite:x.db', '--status', 'done']);
    expect(status.code).toBe(ExitCode.USAGE);
    expect(status.stderr).toMatch(/unknown status "done": use processing, completed, failed/);
    const url = await cli(['status', '--url', 'mongodb://u:hunter22@db:27017/x']);
    expect(url.code).toBe(ExitCode.USAGE);
    expect(url.stderr).toMatch(/Unsupported database URL mongodb:\/\/u@db:27017\/x/);
    expect(url.stderr).not.toContain('hunter22');
    // A URL that does not parse, with a password that holds `/` and `:`: still never shown.
    const broken = await cli(['status', '--url', 'postgres://ops:pa/ss:w0rd@db:badport/shop']);
    expect(broken.code).toBe(ExitCode.USAGE);
    expect(broken.stderr).toMatch(/Unsupported database URL postgres:\/\/\*\*\*@db:badport\/shop/);
    expect(broken.stderr).not.toContain('pa/ss');
    expect(broken.stderr).not.toContain('w0rd');
    const limit = await cli(['list', '--url', 'x.db', '--limit', '20000']);
    expect(limit.code).toBe(ExitCode.USAGE);
    expect(limit.stderr).toMatch(/--limit <n>.*expected a whole number from 1 to 10000/);
    const since = await cli(['status', '--url', 'x.db', '--since', 'soon']);
    expect(since.code).toBe(ExitCode.USAGE);
    expect(since.stderr).toMatch(/--since <duration>.*expected a positive duration/);
  });

  it.each([
    ['postgres', 'postgres'],
    ['mariadb', 'mariadb'],
  ])('an unreachable %s server: the host is shown, the password never', async (_name, scheme) => {
    const port = await freePort();
    const { code, stderr } = await cli([
      'status',
      '--url',
      `${scheme}://ops:s3cret-pw@127.0.0.1:${port}/shop`,
    ]);
    expect(code).toBe(ExitCode.CONNECTION);
    expect(stderr).toContain(`Cannot connect to ${scheme}://ops@127.0.0.1:${port}/shop`);
    expect(stderr).toMatch(/ECONNREFUSED/);
    expect(stderr).not.toContain('s3cret-pw');
  });

  it('a password given as a query parameter is not shown either', async () => {
    const port = await freePort();
    const { code, stderr } = await cli([
      'status',
      '--url',
      `postgres://ops@127.0.0.1:${port}/shop?password=s3cret-pw&sslmode=disable`,
    ]);
    expect(code).toBe(ExitCode.CONNECTION);
    expect(stderr).toContain(
      `Cannot connect to postgres://ops@127.0.0.1:${port}/shop?sslmode=disable`,
    );
    expect(stderr).not.toContain('s3cret-pw');
  });

  it('a driver that is not installed: names the package to install', async () => {
    const { code, stderr } = await cli(['status', '--url', 'postgres://127.0.0.1/x'], {
      drivers: false,
    });
    expect(code).toBe(ExitCode.CONNECTION);
    expect(stderr).toBe(
      'webhook-idempotency: The PostgreSQL driver is not installed: npm install pg\n',
    );
  });

  it('migrate --print needs no connection', async () => {
    const { code, stdout } = await cli([
      'migrate',
      '--print',
      '--dialect',
      'mysql',
      '--table',
      'hooks',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^CREATE TABLE IF NOT EXISTS `hooks` \(/);
  });
});

describe('colour', () => {
  const capture = (isTTY: boolean): OutputStream & { text: string } => ({
    isTTY,
    columns: 80,
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  });
  let url: string;

  beforeAll(async () => {
    const path = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'wi-cli-')), 'colour.db');
    url = `sqlite:${path}`;
    const db = new Database(path);
    await Schema.createTable(db);
    await seedReceipts(db, 'webhook_receipts', [
      { provider: 'github', externalId: 'd-1', status: 'completed', ageMs: 60_000 },
      { provider: 'github', externalId: 'd-2', status: 'failed', ageMs: 60_000 },
      {
        provider: 'shopify',
        externalId: `b7c1e2d4-${'f'.repeat(60)}`,
        status: 'failed',
        ageMs: 120_000,
        error: `Error: ${'the upstream inventory service timed out '.repeat(5)}`,
      },
    ]);
    db.close();
  });

  it.each([
    ['a terminal', true, {}, true],
    ['a terminal with NO_COLOR set', true, { NO_COLOR: '1' }, false],
    ['a pipe', false, {}, false],
  ])('on %s', async (_name, isTTY, env, coloured) => {
    const stdout = capture(isTTY);
    const stderr = capture(isTTY);
    expect(await run(['list', '--url', url], { stdout, stderr, env })).toBe(0);
    expect(stdout.text.includes('\u001b[32mcompleted')).toBe(coloured);
    expect(stdout.text.includes('\u001b[31mfailed')).toBe(coloured);
    // The same table with colour or without, once the colour codes are taken out.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is removed.
    const plain = stdout.text.replace(/\u001b\[\d+m/g, '');
    const lines = plain.split('\n');
    expect(lines[1]).toMatch(/^github +d-2 +failed +1 +1m ago +0ms +Error: failed$/);
    const id = `b7c1e2d4-${'f'.repeat(60)}`;
    if (isTTY) {
      // Fitted to 80 columns: the long error is cut with an ellipsis; the long id never is: it is
      // printed whole on a line of its own under its row.
      expect(lines[3]).toMatch(/^shopify +\(below\) +failed +1 +2m ago +0ms +Error: the up.*…$/);
      expect(lines[4]).toBe(`  id: ${id}`);
      expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(80);
    } else {
      // Piped: every value whole, one row per line.
      const error = `Error: ${'the upstream inventory service timed out '.repeat(5).trimEnd()}`;
      expect(lines[3]).toMatch(new RegExp(`^shopify +${id} +failed +1 +2m ago +0ms +${error}$`));
    }
  });

  it('--json is never coloured', async () => {
    const stdout = capture(true);
    expect(
      await run(['list', '--url', url, '--json'], { stdout, stderr: capture(true), env: {} }),
    ).toBe(0);
    expect(JSON.parse(stdout.text).receipts).toHaveLength(3);
  });
});

describe('purge progress', () => {
  const capture = (isTTY: boolean): OutputStream & { text: string } => ({
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  });
  const seeded = async () => {
    const path = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'wi-cli-')), 'purge.db');
    const db = new Database(path);
    await Schema.createTable(db);
    await seedReceipts(
      db,
      'webhook_receipts',
      ['a', 'b', 'c'].map((externalId) => ({
        provider: 'github',
        externalId,
        status: 'completed' as const,
        ageMs: 60_000,
      })),
    );
    db.close();
    return `sqlite:${path}`;
  };

  it('draws a bar on a terminal', async () => {
    const stdout = capture(true);
    const args = ['purge', '--url', await seeded(), '--retention-days', '0', '--chunk-size', '2'];
    expect(await run(args, { stdout, stderr: capture(true), env: {} })).toBe(0);
    expect(stdout.text).toBe(
      'Purging 3 finished receipts from webhook_receipts.\n' +
        `\r[${'#'.repeat(20)}${'.'.repeat(10)}] 2/3` +
        `\r[${'#'.repeat(30)}] 3/3\n` +
        'Deleted 3 receipts.\n',
    );
  });

  it('prints plain lines elsewhere', async () => {
    const stdout = capture(false);
    const args = ['purge', '--url', await seeded(), '--retention-days', '0', '--chunk-size', '2'];
    expect(await run(args, { stdout, stderr: capture(false), env: {} })).toBe(0);
    expect(stdout.text).toBe(
      'Purging 3 finished receipts from webhook_receipts.\ndeleted 2 of 3\ndeleted 3 of 3\nDeleted 3 receipts.\n',
    );
  });

  it('takes --batch-size, the deprecated name of --chunk-size', async () => {
    const stdout = capture(false);
    const args = ['purge', '--url', await seeded(), '--retention-days', '0', '--batch-size', '2'];
    expect(await run(args, { stdout, stderr: capture(false), env: {} })).toBe(0);
    expect(stdout.text).toBe(
      'Purging 3 finished receipts from webhook_receipts.\ndeleted 2 of 3\ndeleted 3 of 3\nDeleted 3 receipts.\n',
    );
  });

  it('refuses --chunk-size and --batch-size that disagree, deleting nothing', async () => {
    const url = await seeded();
    const stdout = capture(false);
    const stderr = capture(false);
    const args = ['purge', '--url', url, '--retention-days', '0', '--chunk-size', '2'];
    expect(await run([...args, '--batch-size', '3'], { stdout, stderr, env: {} })).toBe(
      ExitCode.USAGE,
    );
    expect(stderr.text).toMatch(/--chunk-size 2 and its deprecated name --batch-size 3 disagree/);
    expect(stdout.text).toBe('');
    const again = capture(false);
    expect(await run(args, { stdout: again, stderr: capture(false), env: {} })).toBe(0);
    expect(again.text).toContain('Deleted 3 receipts.');
  });
});
