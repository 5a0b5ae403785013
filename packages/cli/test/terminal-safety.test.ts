/**
 * Stored data never reaches a terminal raw: headers, ids, errors and stored answers holding
 * control characters (clear the screen, set the window title, paint a fake "all good", C1 CSI,
 * DEL) are printed as `\xNN` by every human-readable command, tables truncate only whole `\xNN`
 * units, and `--json` keeps the exact values. The Printer's own colours still work on a terminal.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { escapeControls, Printer, renderTable } from '../src/output';
import { cli } from './helpers/cli';

const CLEAR = '\u001b[2J\u001b[H';
const TITLE = '\u001b]0;pwned\u0007';
const FAKE_OK = '\u001b[32mall good\u001b[0m';
const C1_CSI = '\u009b2J';
const HOSTILE = `${CLEAR}${TITLE}${FAKE_OK}${C1_CSI}\u007f\r\nstatus      done`;
// What no line of human-readable output may hold: C0 controls but \n, DEL, C1.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let url: string;
const run = (...args: string[]) => cli(args, { env: { DATABASE_URL: url } });

beforeAll(async () => {
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'cli-safety-'));
  const file = join(dir, 'app.db');
  url = `sqlite:${file}`;
  const db = new Database(file);
  try {
    await InboxSchema.createTable(db);
    await Schema.createTable(db);
    const inbox = new SqlInbox(db);
    await inbox.enqueue({
      provider: 'stripe',
      externalId: `evt_${TITLE}1`,
      orderingKey: null,
      headers: { 'x-note': HOSTILE },
      body: Buffer.from(`{"note":"${CLEAR}"}`),
    });
    const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    await inbox.bury(leased!, { error: `${HOSTILE} ${'x'.repeat(200)}${CLEAR}` });
    const guard = new IdempotencyGuard(new SqlStore(db));
    await guard
      .run(new RequestKey('stripe', `evt_${FAKE_OK}`), () => {
        throw new Error(HOSTILE);
      })
      .catch(() => undefined);
    await guard.run(new RequestKey('stripe', 'evt_answer'), () => ({ note: HOSTILE }));
  } finally {
    db.close();
  }
});

it.each([
  ['inbox list'],
  ['inbox dead'],
  ['inbox show stripe', `evt_${TITLE}1`],
  ['inbox show stripe', `evt_${TITLE}1`, '--body'],
  ['list'],
  ['show stripe', `evt_${FAKE_OK}`],
  ['show stripe', 'evt_answer'],
  ['status'],
  ['inbox retry stripe', 'evt_missing\u001b[2J'],
])('%s prints no raw control character', async (command, ...rest) => {
  const { stdout, stderr } = await run(...command.split(' '), ...rest);
  expect(stdout + stderr).not.toMatch(RAW_CONTROL);
  expect(stdout + stderr).not.toMatch(/\\x[0-9a-f]?…/);
});

it('shows the escapes as visible \\xNN text, one line per field', async () => {
  const show = await run('inbox', 'show', 'stripe', `evt_${TITLE}1`);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain('x-note: \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x1b[32mall good');
  expect(show.stdout).toContain('\\x9b2J\\x7f\\x0d\\x0astatus      done');
  // The stored text cannot add a line of its own that looks like a field.
  expect(show.stdout.split('\n').filter((line) => line.startsWith('status'))).toHaveLength(1);
});

it('--json keeps the exact stored values', async () => {
  const { code, stdout } = await run('inbox', 'show', 'stripe', `evt_${TITLE}1`, '--json');
  expect(code).toBe(0);
  const { delivery } = JSON.parse(stdout);
  expect(delivery.headers['x-note']).toBe(HOSTILE);
  expect(delivery.externalId).toBe(`evt_${TITLE}1`);
});

describe('the Printer', () => {
  const capture = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { stream: { isTTY, columns: 40, write: (t: string) => chunks.push(t) }, chunks };
  };

  it('paints its own colours on a terminal, and escapes the ones data brings', () => {
    const { stream, chunks } = capture(true);
    const out = new Printer(stream, true);
    out.line(`${out.paint('red', 'dead')} ${FAKE_OK}`);
    expect(chunks.join('')).toBe('\u001b[31mdead\u001b[0m \\x1b[32mall good\\x1b[0m\n');
  });

  it('truncates table cells only between whole \\xNN units', () => {
    // A terminal of 40 columns: tables are fitted to a terminal only (piped, values are whole).
    const { stream } = capture(true);
    const out = new Printer(stream, false);
    const cell = `${'a'.repeat(5)}${'\u001b'.repeat(20)}`;
    const lines = renderTable(
      out,
      [{ header: 'id' }, { header: 'error', flexible: true, cut: true }],
      [['x', cell]],
    );
    const shown = lines[1]!.slice(4);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown.slice(0, -1)).toMatch(/^a{5}(\\x1b)+$/);
    expect(escapeControls('a\nb')).toBe('a\nb');
    expect(escapeControls('a\nb', { newlines: false })).toBe('a\\x0ab');
  });
});
