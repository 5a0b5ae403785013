/**
 * docs/operations.md shows the command's real output: every ```sh block holding one
 * `webhook-idempotency …` line and followed by a ```text block is run, in the order of the page,
 * on one SQLite file seeded through the real SqlStore (after the page's first `migrate`), and its
 * stdout then stderr must equal that block. ISO timestamps are compared as `<time>`; the ages are
 * whole minutes, so they stay the same while the test runs. Before the page's first inbox command
 * (`inbox …`, `redeliver`), inbox deliveries are stored, leased and settled through the real
 * SqlInbox, their times moved back by whole minutes; before its first outbox command, messages are
 * recorded by `Outbox.add` in the outbox table (`migrate --outbox` made it) and sent, retried and
 * buried as a dispatcher does; the ignored events' counts are written by the real SqlStore.
 * `WI_UPDATE_DOCS=1` writes the
 * outputs into the page instead.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import { Outbox } from '@webhook-idempotency/core/outbox';
import { SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import {
  httpResponse,
  type SeedReceipt,
  seedReceipts,
} from '@webhook-idempotency/sql/test/helpers/seed';
import { cli } from './helpers/cli';

const PAGE = join(__dirname, '..', '..', '..', 'docs', 'operations.md');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const SCENARIO: readonly SeedReceipt[] = [
  {
    provider: 'payme',
    externalId: 'CheckTransaction:6a1f',
    status: 'completed',
    ageMs: 45 * DAY,
    tookMs: 40,
  },
  {
    provider: 'payme',
    externalId: 'PerformTransaction:6a1f',
    status: 'completed',
    ageMs: 40 * DAY,
    tookMs: 310,
  },
  {
    provider: 'github',
    externalId: '72d3162e-cc78-11e3',
    status: 'completed',
    ageMs: 60 * MINUTE,
    tookMs: 120,
  },
  {
    provider: 'github',
    externalId: '8a4b7e10-cc79-11e3',
    status: 'failed',
    ageMs: 10 * MINUTE,
    tookMs: 2100,
    error: 'Error: upstream answered 502',
  },
  {
    provider: 'github',
    externalId: '9c01d2f4-cc79-11e3',
    status: 'processing',
    ageMs: 12 * MINUTE,
  },
  {
    provider: 'stripe',
    externalId: 'evt_1QbF2x',
    status: 'completed',
    ageMs: 20 * MINUTE,
    tookMs: 95,
    response: httpResponse(200, { received: true }),
  },
  { provider: 'stripe', externalId: 'evt_1QbG7k', status: 'processing', ageMs: 2 * MINUTE },
];

/** Inbox deliveries of the page: one dead after four failures, one done; times in minutes ago. */
async function seedInbox(file: string): Promise<void> {
  const db = new Database(file, { fileMustExist: true });
  try {
    const inbox = new SqlInbox(db);
    const stored = (externalId: string, type: string) =>
      inbox.enqueue({
        provider: 'stripe',
        externalId,
        orderingKey: null,
        headers: {
          'content-type': 'application/json',
          'stripe-signature': 't=1764626400,v1=5d1c…',
        },
        body: Buffer.from(
          JSON.stringify({ id: externalId, type, data: { object: { id: 'in_1' } } }),
        ),
      });
    await stored('evt_1QcA9z', 'invoice.paid');
    await stored('evt_1QbZ4m', 'customer.created');
    for (let attempt = 1; attempt <= 4; attempt++) {
      const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
      if (attempt < 4)
        await inbox.retry(leased!, { delayMs: 0, error: 'Error: no customer cus_Q2' });
      else await inbox.bury(leased!, { error: 'Error: no customer cus_Q2' });
    }
    const [done] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    await inbox.complete(done!);
    // SQLite keeps epoch milliseconds: move the times back by whole minutes.
    const back = (id: string, received: number, finished: number) =>
      db
        .prepare(
          'UPDATE webhook_inbox SET received_at = received_at - ?, finished_at = finished_at - ? WHERE external_id = ?',
        )
        .run(received * MINUTE, finished * MINUTE, id);
    back('evt_1QcA9z', 42, 40);
    back('evt_1QbZ4m', 30, 30);
  } finally {
    db.close();
  }
}

/**
 * Outbox messages of the page, recorded by the handler of the inbox's `evt_1QcA9z`: its receipt
 * email dead after four failed sends, its ledger call sent; times in minutes ago.
 */
async function seedOutbox(file: string): Promise<void> {
  const db = new Database(file, { fileMustExist: true });
  try {
    const table = new SqlInbox(db, { table: 'webhook_outbox' });
    // The rows Outbox.add writes in a run's transaction (enqueue stands in for enqueueIn: the
    // commands read rows, not how they committed).
    const outbox = new Outbox<unknown>({ store: { enqueueIn: (row) => table.enqueue(row) } });
    await new IdempotencyGuard(new InMemoryStore()).run(
      { provider: 'stripe', externalId: 'evt_1QcA9z' },
      async (context) => {
        const run = { ...context, transaction: {} };
        await outbox.add(run, {
          name: 'receipt-email',
          sender: 'email',
          payload: { to: 'ada@example.com', subject: 'Your receipt', text: 'Paid: 12.00 EUR' },
        });
        await outbox.add(run, {
          name: 'ledger',
          sender: 'http',
          payload: { url: 'https://ledger.example/entries', json: { invoice: 'in_1' } },
        });
      },
    );
    for (let attempt = 1; attempt <= 4; attempt++) {
      const [leased] = await table.lease({ providers: ['email'], limit: 1, leaseMs: 60_000 });
      const error = 'Error: SMTP 451 mailbox busy';
      if (attempt < 4) await table.retry(leased!, { delayMs: 0, error });
      else await table.bury(leased!, { error });
    }
    const [sent] = await table.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
    await table.complete(sent!);
    db.prepare(
      'UPDATE webhook_outbox SET received_at = received_at - ?, finished_at = finished_at - ?',
    ).run(42 * MINUTE, 38 * MINUTE);
  } finally {
    db.close();
  }
}

interface Example {
  readonly command: string;
  /** Index of the text block's first line and its end, in the page's lines. */
  readonly start: number;
  readonly end: number;
  readonly expected: string;
}

function examples(lines: readonly string[]): Example[] {
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (
      lines[i] !== '```sh' ||
      !lines[i + 1]?.startsWith('webhook-idempotency ') ||
      lines[i + 2] !== '```'
    )
      continue;
    let j = i + 3;
    while (lines[j] === '') j++;
    if (lines[j] !== '```text') continue;
    const start = j + 1;
    let end = start;
    while (lines[end] !== '```') end++;
    found.push({
      command: lines[i + 1]!,
      start,
      end,
      expected: lines.slice(start, end).join('\n'),
    });
  }
  return found;
}

/** What the page's route sets ignored (no route took them): this hour and the one before. */
async function seedIgnored(db: Database.Database): Promise<void> {
  const hour = Math.floor(Date.now() / (60 * MINUTE)) * 60 * MINUTE;
  await new SqlStore(db).addIgnored(
    [
      { provider: 'stripe', type: 'customer.created', hour: hour - 60 * MINUTE, count: 7 },
      { provider: 'stripe', type: 'customer.created', hour, count: 5 },
      { provider: 'stripe', type: 'invoice.upcoming', hour: hour - 60 * MINUTE, count: 3 },
      { provider: 'github', type: 'watch', hour, count: 1 },
    ],
    { now: Date.now() },
  );
}

const normalise = (text: string) =>
  text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>').replace(/\s+$/, '');

describe('docs/operations.md', () => {
  const page = readFileSync(PAGE, 'utf8');
  const lines = page.split('\n');
  const found = examples(lines);
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'wi-ops-doc-'));
  const outputs: string[] = [];
  let seeded = false;
  let inboxSeeded = false;
  let outboxSeeded = false;

  it('has command examples with their output', () => {
    expect(found.length).toBeGreaterThanOrEqual(8);
  });

  it.each(found.map((example, index) => [example.command, index] as const))(
    '%s prints what the page shows',
    async (command, index) => {
      if (!seeded && !command.startsWith('webhook-idempotency migrate')) {
        const db = new Database(join(dir, 'receipts.db'), { fileMustExist: true });
        try {
          await seedReceipts(db, 'webhook_receipts', SCENARIO);
          await seedIgnored(db);
        } finally {
          db.close();
        }
        seeded = true;
      }
      if (!inboxSeeded && /^webhook-idempotency (inbox|redeliver) /.test(command)) {
        await seedInbox(join(dir, 'receipts.db'));
        inboxSeeded = true;
      }
      if (!outboxSeeded && /^webhook-idempotency outbox /.test(command)) {
        await seedOutbox(join(dir, 'receipts.db'));
        outboxSeeded = true;
      }
      // The page's commands are single lines with plain arguments.
      const args = command.split(' ').slice(1);
      const { stdout, stderr } = await cli(args, {
        cwd: dir,
        env: { DATABASE_URL: 'sqlite:receipts.db', COLUMNS: '80' },
      });
      const output = `${stdout}${stderr}`.replace(/\n$/, '');
      outputs[index] = output;
      if (process.env.WI_UPDATE_DOCS) return;
      expect(normalise(output)).toBe(normalise(found[index]!.expected));
      // Readable in an 80-column terminal.
      expect(output.split('\n').filter((line) => line.length > 80)).toEqual([]);
    },
  );

  afterAll(() => {
    if (!process.env.WI_UPDATE_DOCS) return;
    const updated = [...lines];
    for (let i = found.length - 1; i >= 0; i--) {
      const { start, end } = found[i]!;
      const output = outputs[i];
      // Only what changed: a block equal but for its timestamps keeps them.
      if (output !== undefined && normalise(output) !== normalise(found[i]!.expected))
        updated.splice(start, end - start, ...output.split('\n'));
    }
    writeFileSync(PAGE, updated.join('\n'));
  });
});
