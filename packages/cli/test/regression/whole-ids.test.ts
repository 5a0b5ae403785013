/**
 * The CLI never cuts an id: `inbox dead`, `inbox list` and `list` run for real on a SQLite file
 * holding 160-character ids (the longest a store holds). Piped, every value is printed whole, one row per line. On a terminal
 * (a real pseudo-terminal of 80 or 120 columns) the table fits the width: an error is cut with
 * `…`, but an id too long for its column is printed whole on a line of its own under its row, and
 * `inbox dead`'s hint works with the id as printed.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InboxSchema, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { cli } from '../helpers/cli';

const hex = (seed: string) => createHash('sha256').update(seed).digest('hex');
/** 160 characters (the longest id a store holds), nowhere to break: a chain of digests. */
const LONG_ID = `evt_${(hex('a') + hex('b') + hex('c')).slice(0, 156)}`;
const LONG_RECEIPT = `rcpt_${(hex('e') + hex('f') + hex('g')).slice(0, 155)}`;
const ERROR = `Error: the upstream inventory service answered 502 Bad Gateway ${'(retrying later) '.repeat(8)}`;

let file: string;
const env = () => ({ DATABASE_URL: `sqlite:${file}`, NO_COLOR: '1' });
const piped = (...args: string[]) => cli(args, { env: env() });
const onTerminal = (columns: number, ...args: string[]) =>
  cli(args, { env: env(), tty: { columns } });

beforeAll(async () => {
  file = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'cli-whole-ids-')), 'app.db');
  const db = new Database(file);
  try {
    await Schema.createTable(db);
    await InboxSchema.createTable(db);
    await seedReceipts(db, 'webhook_receipts', [
      {
        provider: 'stripe',
        externalId: LONG_RECEIPT,
        status: 'failed',
        ageMs: 60_000,
        error: ERROR,
      },
      { provider: 'stripe', externalId: 'evt_short', status: 'completed', ageMs: 120_000 },
    ]);
    const inbox = new SqlInbox(db);
    for (const externalId of [LONG_ID, 'evt_1']) {
      await inbox.enqueue({
        provider: 'stripe',
        externalId,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    }
    for (const leased of await inbox.lease({ providers: ['stripe'], limit: 2, leaseMs: 60_000 }))
      await inbox.bury(leased, { error: ERROR });
  } finally {
    db.close();
  }
});

describe.each([
  ['inbox dead', ['inbox', 'dead'], LONG_ID],
  ['inbox list', ['inbox', 'list'], LONG_ID],
  ['list', ['list'], LONG_RECEIPT],
])('%s', (_name, args, id) => {
  it('piped, prints every value whole, one row per line', async () => {
    const { code, stdout, stderr } = await piped(...args);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const row = stdout.split('\n').find((line) => line.includes(id));
    expect(row).toMatch(new RegExp(`^stripe +${id} +`));
    expect(row).toContain(ERROR.trimEnd());
    expect(stdout).not.toContain('…');
  });

  it.each([80, 120])(
    'on a terminal of %i columns, fits it and prints the id whole on its own line',
    async (columns) => {
      const { code, stdout } = await onTerminal(columns, ...args);
      expect(code).toBe(0);
      const lines = stdout.split('\n');
      // The id whole, on a line of its own under its row, whose cell points at it.
      const at = lines.indexOf(`  id: ${id}`);
      expect(at).toBeGreaterThan(1);
      expect(lines[at - 1]).toMatch(/^stripe +\(below\) +/);
      // Every other line fits the terminal; the long error is cut to do so.
      const others = lines.filter((_, i) => i !== at);
      expect(Math.max(...others.map((line) => line.length))).toBeLessThanOrEqual(columns);
      expect(lines[at - 1]).toMatch(/Error: the upstream.*…$/);
      // Short ids stay in their column.
      expect(stdout).toMatch(/^stripe +evt_(1|short) +/m);
    },
  );
});

it("inbox dead's hint works with the id as a terminal shows it", async () => {
  const { stdout } = await onTerminal(80, 'inbox', 'dead');
  expect(stdout).toContain('Put one back with: webhook-idempotency inbox retry <provider> <id>');
  const shown = /^ {2}id: (\S+)$/m.exec(stdout)?.[1];
  expect(shown).toBe(LONG_ID);
  const retried = await piped('inbox', 'retry', 'stripe', shown!);
  expect(retried).toMatchObject({ code: 0, stderr: '' });
  const { stdout: json } = await piped('inbox', 'list', '--status', 'pending', '--json');
  expect(JSON.parse(json).deliveries.map((d: { externalId: string }) => d.externalId)).toEqual([
    LONG_ID,
  ]);
});
