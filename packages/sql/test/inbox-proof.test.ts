/**
 * The inbox proof, per database: 4 worker processes, 2,000 stored deliveries (600 in `pnpm test`,
 * 2,000 in `pnpm test:proof`) — half stored before the workers start, half while they run, with
 * as many duplicates as half of them arriving in between
 * — handlers that fail the first attempt of about one delivery in seven, and one worker SIGKILLed
 * inside a handler (its business write uncommitted, its batch leased). Afterwards every delivery
 * is done and booked exactly once (a business row count), the failures were retried, the killed
 * worker's deliveries were taken over once their visibility timeout passed, and the others stopped
 * cleanly on SIGTERM. A handful of poison deliveries, whose handler always fails, end dead (their
 * business writes rolled back), and the real CLI (`inbox dead`) lists exactly them.
 * `WI_SOAK=1` (pnpm test:soak) runs 10,000.
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { DeliveryStatus } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema, SqlInbox } from '../src';
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import {
  type InboxChildTask,
  isFlaky,
  isPoison,
  POISON,
  POISON_ERROR,
  POISON_MAX_FAILURES,
} from './helpers/inbox-proof-shared';
import { connect, type Target } from './helpers/targets';

const DELIVERIES = bySize({ small: 600, full: 2_000, soak: 10_000 });
const DUPLICATES = DELIVERIES / 2;
const WORKERS = 4;
const VISIBILITY_SECONDS = 3;
const GIVE_UP_MS = bySize({ small: 90_000, full: 90_000, soak: 600_000 });
const CHILD = join(__dirname, 'helpers', 'inbox-child.ts');
const CLI = join(__dirname, '..', '..', 'cli', 'src', 'bin.ts');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a failure naming what did not happen within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`gave up waiting for ${what} (${ms} ms)`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every worker process started, killed after each test whatever happened. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Child {
  readonly process: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChild(task: InboxChildTask): Promise<Child> {
  const child = fork(CHILD, [JSON.stringify(task)], {
    execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  started.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message: { type: string; error?: string }) => {
      if (message.type === 'ready') resolve();
      if (message.type === 'error') reject(new Error(`worker failed: ${message.error}`));
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`worker exited with ${code ?? signal} before it was ready`)),
    );
  });
  return { process: child, exited };
}

/** Runs the real `webhook-idempotency` command (`node -r <test-support/register> bin.ts …`) as a user would. */
function runCli(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-r', require.resolve('@webhook-idempotency/test-support/register'), CLI, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        if (typeof code !== 'number') return reject(error);
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The URL the CLI takes for a target. */
const urlOf = (target: Target) =>
  target.dialect === 'sqlite' ? `sqlite:${target.url}` : target.url;

const targets: Array<[string, () => Promise<Target>]> = [
  ['PostgreSQL', async () => ({ dialect: 'postgres', url: await pgDatabase('wi_inbox_proof') })],
  ['MariaDB', async () => ({ dialect: 'mysql', url: await mysqlDatabase('wi_inbox_proof') })],
  ['SQLite file', async () => ({ dialect: 'sqlite', url: sqliteFile('inbox-proof') })],
];

describe.each(targets)('inbox proof on %s', (_name, makeTarget) => {
  it(
    `${DELIVERIES} deliveries, ${WORKERS} worker processes, one SIGKILLed: each booked exactly once`,
    async () => {
      const target = await makeTarget();
      const { db, sql, close } = connect(target);
      const children: Child[] = [];
      try {
        const task: InboxChildTask = {
          target,
          inboxTable: 'proof_inbox',
          receiptsTable: 'proof_receipts',
          effects: 'proof_effects',
          visibilityTimeoutSeconds: VISIBILITY_SECONDS,
          dieInHandler: 0,
        };
        await InboxSchema.createTable(db, { table: task.inboxTable });
        await Schema.createTable(db, { table: task.receiptsTable });
        // No unique index: a second booking of one id would show as a second row.
        await sql.query(
          `CREATE TABLE ${task.effects} (id VARCHAR(200) NOT NULL, pid INTEGER NOT NULL)`,
          [],
        );
        const inbox = new SqlInbox(db, { table: task.inboxTable });
        const ids = Array.from(
          { length: DELIVERIES },
          (_, i) => `evt_${String(i).padStart(6, '0')}`,
        );
        const store = (id: string) =>
          inbox.enqueue({
            provider: 'stripe',
            externalId: id,
            orderingKey: null,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ id, type: 'invoice.paid' })),
          });
        const half = DELIVERIES / 2;
        for (const id of ids.slice(0, half)) expect(await store(id)).toBe(true);
        for (const id of POISON) expect(await store(id)).toBe(true);
        const STORED = DELIVERIES + POISON.length;

        // The victim dies in its 20th handler run, a few per cent into the run.
        for (let i = 0; i < WORKERS; i++)
          children.push(await startChild({ ...task, dieInHandler: i === 0 ? 20 : 0 }));
        const finishedCount = async () =>
          Number(
            (
              await sql.query(
                `SELECT COUNT(*) AS n FROM ${task.inboxTable} WHERE status IN ('done', 'dead')`,
                [],
              )
            ).rows[0]!.n,
          );

        // The second half arrives while the workers run, each new delivery followed by a
        // duplicate of a random earlier one (some done, some in flight, some still pending).
        let duplicatesStored = 0;
        for (let i = half; i < DELIVERIES; i++) {
          expect(await store(ids[i]!)).toBe(true);
          if (await store(ids[Math.floor(Math.random() * i)]!)) duplicatesStored++;
        }
        expect(duplicatesStored).toBe(0);
        expect(DUPLICATES).toBe(DELIVERIES - half);

        const victim = children[0]!;
        expect(await within(victim.exited, 60_000, 'the victim to die')).toEqual({
          code: null,
          signal: 'SIGKILL',
        });
        const killedAt = Date.now();

        const deadline = Date.now() + GIVE_UP_MS;
        while ((await finishedCount()) < STORED && Date.now() < deadline) {
          await sleep(50);
        }
        const allDoneAfterKillMs = Date.now() - killedAt;

        for (const child of children.slice(1)) child.process.kill('SIGTERM');
        const exits = await within(
          Promise.all(children.slice(1).map((c) => c.exited)),
          30_000,
          'the workers to stop on SIGTERM',
        );

        const rows = await inbox.list({ limit: STORED + 1 });
        const byStatus: Record<string, number> = {};
        for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
        const { rows: booked } = await sql.query(
          `SELECT id, COUNT(*) AS n FROM ${task.effects} GROUP BY id`,
          [],
        );
        const bookedTwice = booked.filter((row) => Number(row.n) !== 1).map((row) => row.id);
        const { rows: receipts } = await sql.query(
          `SELECT status, COUNT(*) AS n FROM ${task.receiptsTable} GROUP BY status`,
          [],
        );
        const flaky = rows.filter((row) => isFlaky(row.externalId) && !isPoison(row.externalId));
        const retriedFailures = rows.filter(
          (row) => row.lastError === 'Error: flaky first attempt',
        );
        // Taken over from the killed worker: its expired lease is recorded as a failure.
        const takenOver = rows.filter(
          (row) => row.leases >= 2 && row.lastError?.startsWith('LeaseExpired:') === true,
        );

        expect({
          stored: rows.length,
          byStatus,
          booked: booked.length,
          bookedTwice,
          receipts: Object.fromEntries(receipts.map((r) => [String(r.status), Number(r.n)])),
          exits,
        }).toEqual({
          stored: STORED,
          byStatus: { [DeliveryStatus.DONE]: DELIVERIES, [DeliveryStatus.DEAD]: POISON.length },
          booked: DELIVERIES, // the poison deliveries' writes rolled back every time
          bookedTwice: [],
          receipts: { completed: DELIVERIES, failed: POISON.length },
          exits: children.slice(1).map(() => ({ code: 0, signal: null })),
        });
        // Every flaky delivery failed its first attempt and was retried, or had its first lease on
        // the killed worker (taken over), or had it given back unrun (a stop or a surplus, free of
        // charge: its next lease passes). None went unnoticed: each ran again on a later lease.
        expect(retriedFailures.length).toBeGreaterThan(0);
        expect(retriedFailures.every((row) => row.leases >= 2)).toBe(true);
        expect(
          flaky.filter(
            (row) =>
              row.leases < 2 ||
              (![null, 'Error: flaky first attempt'].includes(row.lastError) &&
                row.lastError?.startsWith('LeaseExpired:') !== true),
          ),
        ).toEqual([]);
        expect(takenOver.length).toBeGreaterThan(0);
        // Nothing stuck past the visibility timeout: the killed worker's leases came back.
        expect(allDoneAfterKillMs).toBeLessThan(GIVE_UP_MS);
        const lastTakeover = Math.max(...takenOver.map((row) => row.finishedAt!.getTime()));
        expect(lastTakeover - killedAt).toBeLessThan(VISIBILITY_SECONDS * 1000 + 30_000);

        // The dead letters, as an operator sees them: the real CLI lists exactly the poison ones.
        const dead = await runCli([
          'inbox',
          'dead',
          '--json',
          '--fail-on-dead',
          '--url',
          urlOf(target),
          '--inbox-table',
          task.inboxTable,
          '--table',
          task.receiptsTable,
        ]);
        expect(dead.stderr).toBe(`${POISON.length} dead deliveries in ${task.inboxTable}\n`);
        expect(dead.code).toBe(8); // ExitCode.DEAD
        const listed = JSON.parse(dead.stdout) as {
          deliveries: Array<{ externalId: string; lastError: string; failures: number }>;
        };
        expect(listed.deliveries.map((d) => d.externalId).sort()).toEqual([...POISON]);
        for (const delivery of listed.deliveries)
          expect(delivery).toMatchObject({
            lastError: `Error: ${POISON_ERROR}`,
            failures: POISON_MAX_FAILURES,
          });
      } finally {
        for (const child of children) child.process.kill('SIGKILL');
        await close();
      }
    },
    GIVE_UP_MS + 60_000,
  );
});
