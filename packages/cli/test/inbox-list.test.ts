/**
 * `inbox list --since` on a SQLite file the real SqlInbox filled: only the deliveries received
 * within the window, with the other filters; a window that is not a duration is a usage error.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { ExitCode } from '../src';
import { cli } from './helpers/cli';

const HOUR = 3_600_000;
let file: string;
const run = (...args: string[]) => cli(args, { env: { DATABASE_URL: `sqlite:${file}` } });
const listed = async (...args: string[]) => {
  const got = await run('inbox', 'list', '--json', ...args);
  expect(got).toMatchObject({ code: 0, stderr: '' });
  return (JSON.parse(got.stdout).deliveries as Array<{ externalId: string }>).map(
    (d) => d.externalId,
  );
};

beforeAll(async () => {
  file = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'cli-inbox-list-')), 'app.db');
  const db = new Database(file);
  try {
    await InboxSchema.createTable(db);
    const inbox = new SqlInbox(db);
    for (const [provider, externalId] of [
      ['stripe', 'day_old'],
      ['stripe', 'hours_old'],
      ['github', 'g_hours_old'],
      ['stripe', 'new'],
    ] as const)
      await inbox.enqueue({
        provider,
        externalId,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    // Received a day and three hours ago (SQLite keeps received_at in epoch milliseconds).
    const backdate = db.prepare(
      'UPDATE webhook_inbox SET received_at = received_at - ? WHERE external_id = ?',
    );
    backdate.run(24 * HOUR, 'day_old');
    backdate.run(3 * HOUR, 'hours_old');
    backdate.run(3 * HOUR, 'g_hours_old');
  } finally {
    db.close();
  }
});

it('--since lists only the deliveries received within the window, with the other filters', async () => {
  expect(await listed('--since', '5h')).toEqual(['hours_old', 'g_hours_old', 'new']);
  expect(await listed('--since', '5h', '--provider', 'stripe')).toEqual(['hours_old', 'new']);
  const table = await run('inbox', 'list', '--since', '1h');
  expect(table.code).toBe(0);
  expect(table.stdout.split('\n')).toEqual([
    expect.stringMatching(/^provider +id +status/),
    expect.stringMatching(/^stripe +new +pending +0 +0 +now$/),
    '',
  ]);
});

it('refuses a window that is not a duration', async () => {
  const bad = await run('inbox', 'list', '--since', 'soon');
  expect(bad.code).toBe(ExitCode.USAGE);
  expect(bad.stderr).toMatch(/--since <duration>.*expected a positive duration/);
});
