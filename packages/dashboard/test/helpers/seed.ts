/**
 * @module The scene the dashboard tests look at, seeded through the real stores: receipts in
 * every state (a stuck claim, a failure, answers whose body and headers hold `<script>`) and inbox
 * deliveries (dead, done, pending), on a SQL database or in memory.
 */
import { InMemoryStore } from '@webhook-idempotency/core';
import { InMemoryInbox, type InboxStore, type NewDelivery } from '@webhook-idempotency/core/inbox';
import { InboxSchema, Schema, SqlInbox, type SqlConnection } from '@webhook-idempotency/sql';
import { type SeedReceipt, seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';

const MINUTE = 60_000;

/** A stored answer (as the HTTP engine records it) whose body is markup that must stay text. */
export const SCRIPT_BODY = '<script>window.__pwned = 1</script><b>not bold</b>';

/** What the engine stores for an answer with `body` and `headers`. */
export const storedAnswer = (body: string, headers: Record<string, string> = {}) =>
  JSON.stringify({
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
    body,
    encoding: 'utf8',
  });

/** The receipts of the scene. */
export const RECEIPTS: readonly SeedReceipt[] = [
  {
    provider: 'stripe',
    externalId: 'evt_done',
    status: 'completed',
    ageMs: 5 * MINUTE,
    tookMs: 120,
    response: storedAnswer(SCRIPT_BODY, { 'x-signature-echo': 't=1,v1=secret-looking' }),
  },
  { provider: 'stripe', externalId: 'evt_2', status: 'completed', ageMs: 20 * MINUTE, tookMs: 340 },
  { provider: 'stripe', externalId: 'evt_stuck', status: 'processing', ageMs: 20 * MINUTE },
  {
    provider: 'github',
    externalId: 'gh-<b>1</b>',
    status: 'failed',
    ageMs: 8 * MINUTE,
    tookMs: 2100,
    error: 'Error: <img src=x onerror=alert(1)>',
  },
  { provider: 'github', externalId: 'gh-2', status: 'completed', ageMs: 40 * MINUTE, tookMs: 90 },
  { provider: 'github', externalId: 'gh-fresh', status: 'processing', ageMs: 1000 },
];

/** The inbox deliveries of the scene: `dead`, `done`, `pending`, each under its id. */
export const DELIVERIES: Readonly<Record<'dead' | 'done' | 'pending', NewDelivery>> = {
  dead: {
    provider: 'stripe',
    externalId: 'evt_dead',
    orderingKey: null,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': 't=1700000000,v1=abcdef0123456789',
    },
    body: Buffer.from(
      JSON.stringify({ id: 'evt_dead', note: '<script>window.__pwned = 2</script>' }),
    ),
  },
  done: {
    provider: 'stripe',
    externalId: 'evt_inbox_done',
    orderingKey: null,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"id":"evt_inbox_done"}'),
  },
  pending: {
    provider: 'github',
    externalId: 'gh-pending',
    orderingKey: null,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=0123' },
    body: Buffer.from('{"zen":"Keep it logically awesome."}'),
  },
};

/** Stores the scene's deliveries: the dead one failed its last attempt, the done one completed, the pending one waits. */
export async function seedInbox(inbox: InboxStore): Promise<void> {
  for (const delivery of Object.values(DELIVERIES)) await inbox.enqueue(delivery);
  const leased = await inbox.lease({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
  for (const d of leased) {
    if (d.externalId === DELIVERIES.dead.externalId)
      await inbox.bury(d, { error: 'Error: the handler gave up <again>' });
    else await inbox.complete(d);
  }
}

/** The scene on a SQL database: both tables created, then seeded. */
export async function seedSql(db: SqlConnection): Promise<SqlInbox> {
  await Schema.createTable(db);
  await InboxSchema.createTable(db);
  await seedReceipts(db, 'webhook_receipts', RECEIPTS);
  const inbox = new SqlInbox(db);
  await seedInbox(inbox);
  return inbox;
}

/** The outbox's message of the scene: recorded by the handler of `evt_done`, dead after a 400. */
export const MESSAGE: NewDelivery = {
  provider: 'http',
  externalId: '0f5c8a52-3c1e-8d4b-a1f0-6e2d9b7c4a13',
  orderingKey: null,
  headers: { 'receipt-provider': 'stripe', 'receipt-id': 'evt_done', 'effect-name': 'refund' },
  body: Buffer.from('{"url":"https://payments.test/refunds","json":{"amount":1200}}'),
};

/** The outbox's table of the scene (an inbox-shaped table of its own), its message dead. */
export async function seedOutbox(db: SqlConnection): Promise<SqlInbox> {
  await InboxSchema.createTable(db, { table: 'webhook_outbox' });
  const outbox = new SqlInbox(db, { table: 'webhook_outbox' });
  await outbox.enqueue(MESSAGE);
  const [leased] = await outbox.lease({ providers: ['http'], limit: 1, leaseMs: 60_000 });
  await outbox.bury(leased!, { error: 'PermanentSendFailure: HTTP 400 no such charge' });
  return outbox;
}

/** The scene in memory: an `InMemoryStore` (its clock moved as the ages say) and an `InMemoryInbox`. */
export async function seedMemory(): Promise<{ store: InMemoryStore; inbox: InMemoryInbox }> {
  const store = new InMemoryStore();
  const now = Date.now();
  for (const r of RECEIPTS) {
    const key = { provider: r.provider, externalId: r.externalId };
    const claimedAt = now - r.ageMs - (r.tookMs ?? 0);
    const { receipt } = await store.claim(key, { now: claimedAt, fingerprint: null });
    const at = { now: now - r.ageMs, attempts: receipt.attempts, claimedAt: receipt.claimedAt };
    if (r.status === 'completed')
      await store.complete(key, { ...at, response: r.response ?? storedAnswer('{}') });
    if (r.status === 'failed') await store.fail(key, { ...at, error: r.error ?? 'Error: failed' });
  }
  const inbox = new InMemoryInbox();
  await seedInbox(inbox);
  return { store, inbox };
}
