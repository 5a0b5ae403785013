/**
 * The outbox page over real HTTP, on a SQLite file whose outbox table (an inbox-shaped table:
 * `SqlInbox` on `webhook_outbox`) holds messages recorded by `Outbox.add` and ended as a
 * dispatcher ends its leases: the list by status and sender with each message's effect name,
 * key and receipt; one message and its payload; the retry of a dead one under the inbox page's
 * CSRF and authorization rules; everything stored escaped.
 */
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import { Outbox } from '@webhook-idempotency/core/outbox';
import { InboxSchema, ReceiptsAdmin, Schema, SqlInbox } from '@webhook-idempotency/sql';
import { sqliteFile } from '@webhook-idempotency/sql/test/helpers/databases';
import Database from 'better-sqlite3';
import { Client, tokenOf } from './helpers/client';
import { isAdmin, type Mounted, mounts } from './helpers/mounts';

const BASE = '/admin/hooks';
const ADMIN = { 'x-admin': 'yes' };
const NAME = '<img src=x onerror=alert(2)>';
const RECEIPT_ID = 'evt_<b>1</b>';
const mount = mounts.find((m) => m.name === 'express')!;

let db: Database.Database;
let outboxTable: SqlInbox;
let receipts: ReceiptsAdmin;
/** Each message's effect key, by its effect name. */
const keys: Record<string, string> = {};

beforeAll(async () => {
  db = new Database(sqliteFile('dashboard-outbox'));
  await Schema.createTable(db);
  await InboxSchema.createTable(db, { table: 'webhook_outbox' });
  receipts = new ReceiptsAdmin(db);
  outboxTable = new SqlInbox(db, { table: 'webhook_outbox' });
  // The rows Outbox.add writes (SqlInbox.enqueue stands in for the transactional enqueueIn: the
  // page reads rows, not how they committed).
  const outbox = new Outbox<unknown>({
    store: { enqueueIn: (delivery) => outboxTable.enqueue(delivery) },
  });
  await new IdempotencyGuard(new InMemoryStore()).run(
    { provider: 'stripe', externalId: RECEIPT_ID },
    async (context) => {
      const run = { ...context, transaction: {} };
      for (const [name, sender] of [
        [NAME, 'http'],
        ['receipt-email', 'email'],
        ['ledger', 'http'],
      ] as const)
        keys[name] = await outbox.add(run, {
          name,
          sender,
          payload: { note: '<script>window.__pwned = 3</script>' },
        });
    },
  );
  // As a dispatcher ends its leases: the first refused for good, the email sent; the last pending.
  const [refused] = await outboxTable.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
  await outboxTable.bury(refused!, { error: 'PermanentSendFailure: HTTP 400 <script>x</script>' });
  const [sent] = await outboxTable.lease({ providers: ['email'], limit: 1, leaseMs: 60_000 });
  await outboxTable.complete(sent!);
});
afterAll(() => db.close());

describe('the dashboard with an outbox', () => {
  let mounted: Mounted;
  let admin: Client;
  beforeAll(async () => {
    mounted = await mount.mount({
      basePath: BASE,
      authorize: isAdmin,
      receipts,
      outbox: outboxTable,
    } as never);
    admin = new Client(mounted.origin, ADMIN);
  });
  afterAll(() => mounted.close());

  const messagePath = (sender: string, name: string) =>
    `?sender=${sender}&key=${encodeURIComponent(keys[name]!)}`;

  it('lists the messages with sender, effect name, key, receipt and state, filtered by status and sender, escaped', async () => {
    const all = await admin.get(`${BASE}/outbox`);
    expect(all.status).toBe(200);
    expect(all.text).toContain(`<a href="${BASE}/outbox" aria-current="page">Outbox</a>`);
    expect(all.text).toContain('3 messages, in the order they were recorded.');
    for (const key of Object.values(keys)) expect(all.text).toContain(key);
    expect(all.text).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(all.text).toContain('evt_&lt;b&gt;1&lt;/b&gt;');
    expect(all.text).toContain(
      `href="${BASE}/receipt?provider=stripe&amp;id=${encodeURIComponent(RECEIPT_ID)}"`,
    );
    expect(all.text).not.toMatch(/<img|<script>|<b>1/);

    const dead = await admin.get(`${BASE}/outbox?status=dead`);
    expect(dead.text).toContain('1 message, in the order they were recorded.');
    expect(dead.text).toContain(keys[NAME]);
    expect(dead.text).toContain('PermanentSendFailure: HTTP 400 &lt;script&gt;');
    expect(dead.text).not.toContain(keys['receipt-email']);
    const email = await admin.get(`${BASE}/outbox?sender=email`);
    expect(email.text).toContain(keys['receipt-email']);
    expect(email.text).not.toContain(keys.ledger);
    expect((await admin.get(`${BASE}/outbox?status=failed`)).status).toBe(400);
  });

  it('shows one message with its receipt, the payload only when asked, escaped', async () => {
    const detail = await admin.get(`${BASE}/outbox/message${messagePath('http', NAME)}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toMatch(
      /<dt>Effect name<\/dt><dd><bdi>&lt;img src=x onerror=alert\(2\)&gt;/,
    );
    expect(detail.text).toContain(`<dt>Effect key</dt><dd><bdi>${keys[NAME]}</bdi>`);
    expect(detail.text).toContain('<span class="badge s-dead">dead</span>');
    expect(detail.text).toContain(
      `href="${BASE}/outbox/retry${messagePath('http', NAME).replace('&', '&amp;')}"`,
    );
    expect(detail.text).not.toContain('__pwned');
    const payload = await admin.get(`${BASE}/outbox/message/payload${messagePath('http', NAME)}`);
    expect(payload.text).toContain('&lt;script&gt;window.__pwned = 3&lt;/script&gt;');
    expect(payload.text).not.toContain('<script>window');
    const sent = await admin.get(`${BASE}/outbox/message${messagePath('email', 'receipt-email')}`);
    expect(sent.text).not.toContain('/outbox/retry');
    const none = await admin.get(`${BASE}/outbox/message?sender=http&key=nope`);
    expect(none.status).toBe(404);
    expect(none.text).toContain('No message <bdi>http</bdi> <bdi>nope</bdi> in the outbox.');
  });

  it('retries a dead message only with its CSRF token, from the state its page showed; refuses a sent one', async () => {
    const path = `${BASE}/outbox/retry${messagePath('http', NAME)}`;
    const confirm = await admin.get(path);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('This puts it back for a dispatcher: dead → pending');
    const token = tokenOf(confirm.text);
    const seen = { csrf: token, seenStatus: 'dead', seenLeases: '1' };
    expect((await admin.post(path, { ...seen, csrf: 'forged' })).status).toBe(403);
    expect((await new Client(mounted.origin).post(path, seen)).status).toBe(401);
    expect((await outboxTable.find('http', keys[NAME]!))?.status).toBe('dead');

    const done = await admin.post(path, seen);
    expect(done.status).toBe(303);
    const location = done.headers.get('location')!;
    expect(location).toBe(
      `${BASE}/outbox/message${messagePath('http', NAME)}&done=message-retried`,
    );
    expect(await outboxTable.find('http', keys[NAME]!)).toMatchObject({
      status: 'pending',
      failures: 0,
    });
    expect((await admin.get(location)).text).toContain(
      'Retried: the message is pending and due now; a dispatcher sends it at its next poll',
    );
    // The same form again: the message is no longer as its page showed it.
    const again = await admin.post(path, seen);
    expect(again.status).toBe(409);
    expect(again.text).toContain('It was retried meanwhile');

    const sentPath = `${BASE}/outbox/retry${messagePath('email', 'receipt-email')}`;
    const refused = await admin.get(sentPath);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('It is done: it was sent.');
    expect((await admin.post(sentPath, { csrf: token })).status).toBe(409);
    expect((await outboxTable.find('email', keys['receipt-email']!))?.status).toBe('done');
  });
});

describe('the dashboard without an outbox, read-only, or given something else', () => {
  it('has no outbox pages without the option', async () => {
    const mounted = await mount.mount({ basePath: BASE, authorize: () => true, receipts } as never);
    try {
      const client = new Client(mounted.origin);
      const overview = await client.get(`${BASE}/`);
      expect(overview.text).not.toContain(`${BASE}/outbox`);
      const page = await client.get(`${BASE}/outbox`);
      expect(page.status).toBe(404);
      expect(page.text).toContain('This dashboard was mounted without an outbox.');
    } finally {
      await mounted.close();
    }
  });

  it('read-only: shows the messages, offers no retry and performs none', async () => {
    const [dead] = await outboxTable.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
    await outboxTable.bury(dead!, { error: 'Error: down' });
    const mounted = await mount.mount({
      basePath: BASE,
      authorize: () => true,
      receipts,
      outbox: outboxTable,
      readOnly: true,
    } as never);
    try {
      const reader = new Client(mounted.origin);
      const query = `?sender=http&key=${encodeURIComponent(dead!.externalId)}`;
      const detail = await reader.get(`${BASE}/outbox/message${query}`);
      expect(detail.status).toBe(200);
      expect(detail.text).toContain('<span class="badge s-dead">dead</span>');
      expect(detail.text).not.toContain('/outbox/retry');
      expect((await reader.get(`${BASE}/outbox/retry${query}`)).status).toBe(403);
      expect((await reader.post(`${BASE}/outbox/retry${query}`, { csrf: 'x' })).status).toBe(403);
      expect((await outboxTable.find('http', dead!.externalId))?.status).toBe('dead');
    } finally {
      await mounted.close();
    }
  });

  it('refuses an outbox that is not a store with the operator role, naming the option', async () => {
    await expect(
      mount.mount({ basePath: BASE, authorize: () => true, receipts, outbox: {} } as never),
    ).rejects.toMatchObject({ name: 'ConfigError', option: 'outbox' });
  });
});
