/**
 * `redeliver` by query on a terminal: it lists what it would change, asks `[y/N]`, and changes it
 * only on `y`; any other answer changes nothing and exits REFUSED. Run on a real pseudo-terminal
 * (util-linux `script`), the answer typed on it.
 */
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import Database from 'better-sqlite3';
import { ExitCode } from '../src';
import { cli } from './helpers/cli';

let file: string;
const status = async () => {
  const db = new Database(file, { readonly: true });
  try {
    return (await new SqlInbox(db).find('stripe', 'evt_dead'))?.status;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  file = sqliteFile('confirm');
  const db = new Database(file);
  try {
    await InboxSchema.createTable(db);
    const inbox = new SqlInbox(db);
    await inbox.enqueue({
      provider: 'stripe',
      externalId: 'evt_dead',
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
    const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    await inbox.bury(leased!, { error: 'Error: poison' });
  } finally {
    db.close();
  }
});

const ask = (answer: string) =>
  cli(['redeliver', '--status', 'dead'], {
    env: { DATABASE_URL: `sqlite:${file}` },
    tty: { columns: 100 },
    input: answer,
  });

it('asks first; an answer other than y changes nothing', async () => {
  const declined = await ask('n\n');
  expect(declined.code).toBe(ExitCode.REFUSED);
  expect(declined.stdout).toMatch(/stripe +evt_dead +\d+s ago +dead → pending\n/);
  expect(declined.stdout).toMatch(/Redeliver 1 delivery in webhook_inbox\? \[y\/N\] /);
  expect(declined.stdout).toMatch(/Not confirmed: nothing was changed\./);
  expect(await status()).toBe('dead');
});

it('changes it on y', async () => {
  const confirmed = await ask('y\n');
  expect(confirmed.code).toBe(ExitCode.OK);
  expect(confirmed.stdout).toMatch(/Redelivered 1 delivery: pending, due now\.\n$/);
  expect(await status()).toBe('pending');
});
