/**
 * The alert watcher on real databases: it reads the receipts (ReceiptsAdmin) and the inbox
 * (SqlInbox), notifies each incident once and its end once, and shares nothing with the webhook
 * path but the database. On a PostgreSQL pool of ONE connection, a receiver that never answers
 * holds a notice in flight while the inbox endpoint answers twenty deliveries through that same
 * connection (the watcher's reads are over before it sends); a receiver that fails costs the
 * endpoint nothing either, and is reported.
 */
import {
  IdempotencyGuard,
  type HttpRequest,
  type RequestKey as Key,
  RequestKey,
} from '@webhook-idempotency/core';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import {
  createAlertWatcher,
  signedWebhook,
  type WatcherEvent,
} from '@webhook-idempotency/core/alerts';
import Database from 'better-sqlite3';
import pg from 'pg';
import { InboxSchema, ReceiptsAdmin, Schema, SqlInbox, SqlStore } from '../src';
import { startAlertReceiver } from './helpers/alert-receiver';
import { pgDatabase, sqliteFile } from './helpers/databases';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let receiver: Awaited<ReturnType<typeof startAlertReceiver>> | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('receipts conditions (ReceiptsAdmin on SQLite)', () => {
  it('fires failure rate, slow answers and stuck claims once each, and resolves them once the window has passed', async () => {
    const db = new Database(sqliteFile('alert-watcher-receipts'));
    try {
      await Schema.createTable(db);
      const guard = new IdempotencyGuard(new SqlStore(db), { staleAfterSeconds: 0.05 });
      const key = (id: string): Key => new RequestKey('stripe', id);
      for (const id of ['f1', 'f2', 'f3'])
        await guard
          .run(key(id), () => Promise.reject(new Error('declined')))
          .catch(() => undefined);
      for (const id of ['s1', 's2']) await guard.run(key(id), () => sleep(120).then(() => 'ok'));
      await guard.claim(key('dead-worker')); // never settled: its worker "died"
      await sleep(100);
      receiver = await startAlertReceiver('ok');
      const watcher = createAlertWatcher({
        receipts: new ReceiptsAdmin(db),
        notify: signedWebhook({ url: receiver.url, secret: SECRET }),
        staleAfterMs: 50,
        failureRate: { above: 0.5, windowMs: 1500, minFinished: 4 },
        slowAnswers: { p95AboveMs: 100, windowMs: 1500, minSampled: 2 },
      });
      await watcher.checkOnce();
      await watcher.checkOnce();
      expect(receiver.alerts().sort()).toEqual([
        'firing failure-rate:*',
        'firing slow-answers:*',
        'firing stuck-claims:stripe',
      ]);
      await sleep(1600); // nothing finished in the window any more
      await watcher.checkOnce();
      await watcher.checkOnce();
      expect(receiver.alerts().slice(3).sort()).toEqual([
        'resolved failure-rate:*',
        'resolved slow-answers:*',
      ]);
      expect(watcher.firing.map((a) => a.id)).toEqual(['stuck-claims:stripe']);
    } finally {
      db.close();
    }
  });
});

describe('the webhook path while a notice is stuck or refused (PostgreSQL, a pool of one connection)', () => {
  let pool: pg.Pool;
  let deliveries: SqlInbox;
  const request = (id: string): HttpRequest<string> => ({
    method: 'POST',
    url: '/hook',
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(`{"id":"${id}"}`),
    body: undefined,
    native: id,
  });
  const endpoint = () =>
    createInboxEngine<string>({
      inbox: deliveries,
      provider: 'stripe',
      key: (id) => id,
      unverified: true,
    });

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await pgDatabase('wi_alert_watcher'), max: 1 });
    await InboxSchema.createTable(pool);
    await Schema.createTable(pool);
    deliveries = new SqlInbox(pool);
    // A dead letter: the watcher has an incident to notify.
    await deliveries.enqueue({
      provider: 'stripe',
      externalId: 'doomed',
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
    const [doomed] = await deliveries.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    await deliveries.bury(doomed!, { error: 'Error: no customer' });
  });
  afterAll(() => pool.end());

  it('a receiver that never answers: twenty deliveries are stored and answered while its notice is still in flight', async () => {
    receiver = await startAlertReceiver('hang');
    const events: WatcherEvent[] = [];
    const watcher = createAlertWatcher({
      inbox: deliveries,
      receipts: new ReceiptsAdmin(pool),
      notify: signedWebhook({ url: receiver.url, secret: SECRET, timeoutMs: 60_000 }),
      sendTimeoutMs: 60_000,
      onEvent: (event) => events.push(event),
    });
    const arrived = receiver.nextPost();
    let checked = false;
    const checking = watcher.checkOnce().then(() => {
      checked = true;
    });
    await arrived;
    const engine = endpoint();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => engine.accept(request(`evt_hang_${i}`))),
    );
    // Every delivery was stored and answered while the notice still waited for its answer.
    expect(answers.map((a) => a.action === 'respond' && a.response.status)).toEqual(
      Array(20).fill(200),
    );
    expect(answers.every((a) => a.action === 'respond' && a.stored)).toBe(true);
    expect(receiver.open).toBe(1);
    expect(checked).toBe(false);
    expect(receiver.alerts()).toEqual(['firing dead-letters:stripe']);
    await watcher.stop();
    await checking;
    expect(events).toEqual([expect.objectContaining({ type: 'notify-failed' })]);
  });

  it('a receiver that fails: the endpoint answers as before, the failure is reported, nothing is thrown', async () => {
    receiver = await startAlertReceiver('fail');
    const events: WatcherEvent[] = [];
    const watcher = createAlertWatcher({
      inbox: deliveries,
      notify: signedWebhook({ url: receiver.url, secret: SECRET }),
      onEvent: (event) => events.push(event),
    });
    const engine = endpoint();
    const [answers] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, (_, i) => engine.accept(request(`evt_fail_${i}`)))),
      watcher.checkOnce(),
      watcher.checkOnce(),
    ]);
    expect(answers.map((a) => a.action === 'respond' && a.response.status)).toEqual(
      Array(20).fill(200),
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'notify-failed',
        error: expect.objectContaining({ status: 500 }),
      }),
    ]);
  });
});
