/**
 * The dashboard's repairs race a real worker, over real HTTP, on SQLite and PostgreSQL: a repair is
 * a compare-and-set on what its confirmation page showed (the form carries it), and its answer says
 * exactly what happened. A dead delivery that a worker ran to `done` between the page and the
 * click, or between the action's read and its write, stays `done` ("was done meanwhile: left as it
 * is"), never `pending` again under a "Retried"; a claim taken over since the page is not released.
 */
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import {
  InboxSchema,
  ReceiptsAdmin,
  Schema,
  type SqlConnection,
  SqlInbox,
  SqlStore,
} from '@webhook-idempotency/sql';
import { pgDatabase, sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import { RacedInbox } from '@webhook-idempotency/sql/test/helpers/raced-inbox';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Client } from '../helpers/client';
import { isAdmin, type Mounted, mounts } from '../helpers/mounts';

const BASE = '/admin/hooks';
const ADMIN = { 'x-admin': 'yes' };

const databases: Array<[string, () => Promise<{ db: SqlConnection; close(): Promise<void> }>]> = [
  [
    'SQLite',
    async () => {
      const db = new Database(sqliteFile('dashboard-repairs'));
      db.pragma('journal_mode = WAL');
      return { db, close: async () => void db.close() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const db = new pg.Pool({ connectionString: await pgDatabase('wi_dashboard_repairs') });
      return { db, close: () => db.end() };
    },
  ],
];

/** The form fields of the page's confirmation form: its hidden inputs (the token, the state shown). */
function formOf(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of page.matchAll(
    /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
  ))
    fields[name!] = value!;
  return fields;
}

const mount = mounts.find((m) => m.name === 'express')!;

describe.each(databases)('dashboard repairs racing a worker (%s)', (_name, open) => {
  let opened: Awaited<ReturnType<(typeof databases)[number][1]>>;
  let n = 0;
  let inbox: SqlInbox;
  let raced: RacedInbox;
  let store: SqlStore;
  let mounted: Mounted;
  let admin: Client;
  let failing: boolean;

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    n++;
    const tables = { receipts: `receipts_${n}`, inbox: `inbox_${n}` };
    await Schema.createTable(opened.db, { table: tables.receipts });
    await InboxSchema.createTable(opened.db, { table: tables.inbox });
    inbox = new SqlInbox(opened.db, { table: tables.inbox });
    raced = new RacedInbox(inbox);
    store = new SqlStore(opened.db, { table: tables.receipts });
    failing = true;
    mounted = await mount.mount({
      basePath: BASE,
      authorize: isAdmin,
      receipts: new ReceiptsAdmin(opened.db, { table: tables.receipts }),
      inbox: raced,
    } as never);
    admin = new Client(mounted.origin, ADMIN);
  });
  afterEach(() => mounted.close());

  const worker = (extra = {}) =>
    createInboxWorker({
      inbox,
      store: store as never,
      handlers: {
        stripe: async (d) => {
          if (failing) throw new Error('the ledger is down');
          return { booked: d.externalId };
        },
      },
      maxFailures: 1,
      backoffBaseMs: 1,
      ...extra,
    });
  /** Stores the deliveries; the worker fails each once: dead after one lease. */
  const dead = async (...ids: string[]) => {
    for (const externalId of ids)
      await inbox.enqueue({
        provider: 'stripe',
        externalId,
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
    failing = true;
    while ((await worker().runOnce()) > 0);
  };
  /** Another operator retries `id`; a worker runs it to the end. */
  const runElsewhere = async (id: string) => {
    const seen = (await inbox.find('stripe', id))!;
    expect(
      await inbox.redeliver('stripe', id, { status: 'dead', leases: seen.leases }),
    ).toBeTruthy();
    failing = false;
    expect(await worker().runOnce()).toBe(1);
  };
  const statusOf = async (id: string) => (await inbox.find('stripe', id))?.status;

  it('Retry after the delivery was run to done since the confirmation page: 409 "was done meanwhile: left as it is"; it stays done', async () => {
    await dead('evt_1');
    const path = `${BASE}/delivery/retry?provider=stripe&id=evt_1`;
    const shown = await admin.get(path);
    expect(shown.status).toBe(200);
    await runElsewhere('evt_1');
    const got = await admin.post(path, formOf(shown.text));
    expect(await statusOf('evt_1')).toBe('done');
    expect(got.status).toBe(409);
    expect(got.text).toContain('It was done meanwhile: left as it is.');
  });

  it('Retry whose delivery is run to done between the action’s read and its write: not "Retried", it stays done', async () => {
    await dead('evt_1');
    const path = `${BASE}/delivery/retry?provider=stripe&id=evt_1`;
    const shown = await admin.get(path);
    raced.arm(() => runElsewhere('evt_1'));
    const got = await admin.post(path, formOf(shown.text));
    expect(await statusOf('evt_1')).toBe('done');
    expect(got.status).toBe(409);
    expect(got.headers.get('location')).toBeNull();
    expect(got.text).toContain('It was done meanwhile: left as it is.');
  });

  // `seenAttempts`: the field's name on a confirmation page the version before rendered.
  it.each(['seenLeases', 'seenAttempts'])(
    'Retry of a pending delivery shown waiting, claimed and failed again since: its new backoff stands (its lease count as %s)',
    async (field) => {
      await inbox.enqueue({
        provider: 'stripe',
        externalId: 'evt_1',
        orderingKey: null,
        headers: {},
        body: Buffer.from('{}'),
      });
      expect(await worker({ maxFailures: 5 }).runOnce()).toBe(1);
      const path = `${BASE}/delivery/retry?provider=stripe&id=evt_1`;
      const shown = await admin.get(path);
      const { seenLeases = '', ...form } = formOf(shown.text);
      expect({ ...form, seenLeases }).toMatchObject({ seenStatus: 'pending', seenLeases: '1' });
      const slow = worker({ maxFailures: 5, backoffBaseMs: 3_600_000 });
      while ((await slow.runOnce()) === 0);
      const got = await admin.post(path, { ...form, [field]: seenLeases });
      expect(got.status).toBe(409);
      expect(got.text).toContain('It was run and failed again meanwhile');
      const now = (await inbox.find('stripe', 'evt_1'))!;
      expect(now.availableAt.getTime()).toBeGreaterThan(Date.now() + 60_000);
    },
  );

  it('Retry dead deliveries: one run to done after the listing stays done, and the page names it as left', async () => {
    await dead('evt_1', 'evt_2', 'evt_3');
    const path = `${BASE}/deliveries/retry-dead`;
    const shown = await admin.get(path);
    expect(shown.text).toContain('3 dead deliveries match');
    raced.arm(() => runElsewhere('evt_2'));
    const got = await admin.post(path, formOf(shown.text));
    expect(await statusOf('evt_2')).toBe('done');
    expect(await statusOf('evt_1')).toBe('pending');
    expect(got.status).toBe(200);
    expect(got.text).toContain('Retried 2 dead deliveries');
    expect(got.text).toContain('1 delivery was no longer dead as listed and was left as it is');
    expect(got.text).toMatch(
      /evt_2<\/bdi><\/a><\/td><td data-label="now">was done meanwhile<\/td>/,
    );
  });

  it('Redeliver (no force) of a dead delivery run to done since the page: left done', async () => {
    await dead('evt_1');
    const path = `${BASE}/delivery/redeliver?provider=stripe&id=evt_1`;
    const shown = await admin.get(path);
    raced.arm(() => runElsewhere('evt_1'));
    const got = await admin.post(path, formOf(shown.text));
    expect(await statusOf('evt_1')).toBe('done');
    expect(got.status).toBe(409);
    expect(got.text).toContain('It was done meanwhile: left as it is.');
  });

  it('Release of a fresh claim, forced: a claim taken over since the page is not released', async () => {
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('stripe', 'evt_1');
    const held = () => {
      let finish!: (error?: Error) => void;
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const result = guard.run(key, () => {
        started();
        return new Promise((resolve, reject) => (finish = (e) => (e ? reject(e) : resolve('ok'))));
      });
      return { result, running, finish: (error?: Error) => finish(error) };
    };
    const first = held();
    await first.running;
    const path = `${BASE}/receipt/release?provider=stripe&id=evt_1`;
    const shown = await admin.get(path);
    expect(formOf(shown.text)).toMatchObject({ seenAttempts: '1' });
    first.finish(new Error('upstream 502'));
    await expect(first.result).rejects.toThrow('upstream 502');
    const second = held();
    await second.running;
    const got = await admin.post(path, { ...formOf(shown.text), force: '1' });
    expect(got.status).toBe(409);
    expect(got.text).toContain('It is no longer the claim shown (now processing, attempt 2');
    second.finish();
    await expect(second.result).resolves.toMatchObject({ response: 'ok', attempts: 2 });
  });
});
