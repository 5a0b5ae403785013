/**
 * A lease call that meets a table lock (the kind a migration takes) on PostgreSQL and MariaDB: the
 * call itself ends at `leaseTimeoutMs` with an error, and `worker.stop()` and `relay.stop()`
 * return by their timeout while it is still blocked, saying so in a `store-error` event. What the
 * blocked call leases once the lock is gone is given back at once, free of charge.
 */
import { InMemoryStore } from '@webhook-idempotency/core';
import { createInboxWorker, type InboxEvent } from '@webhook-idempotency/core/inbox';
import { createInboxRelay } from '@webhook-idempotency/core/adapter';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { InboxSchema, SqlInbox } from '../src';
import { mysqlDatabase, pgDatabase } from './helpers/databases';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How a test holds a lock on the inbox table from a connection of its own, and lets it go. */
interface Locker {
  lock(table: string): Promise<void>;
  unlock(): Promise<void>;
}

interface Server {
  readonly db: pg.Pool | mysql.Pool;
  locker(): Promise<Locker>;
  close(): Promise<void>;
}

const servers: Array<[string, () => Promise<Server>]> = [
  [
    'PostgreSQL (LOCK TABLE … IN ACCESS EXCLUSIVE MODE)',
    async () => {
      const url = await pgDatabase('wi_inbox_blocked_claim');
      const db = new pg.Pool({ connectionString: url, max: 4 });
      return {
        db,
        async locker() {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          return {
            async lock(table) {
              await client.query('BEGIN');
              await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
            },
            async unlock() {
              await client.query('ROLLBACK');
              await client.end();
            },
          };
        },
        close: () => db.end(),
      };
    },
  ],
  [
    'MariaDB (LOCK TABLES … WRITE)',
    async () => {
      const url = await mysqlDatabase('wi_inbox_blocked_claim');
      const db = mysql.createPool({ uri: url, connectionLimit: 4 });
      return {
        db,
        async locker() {
          const connection = await mysql.createConnection(url);
          return {
            async lock(table) {
              await connection.query(`LOCK TABLES ${table} WRITE`);
            },
            async unlock() {
              await connection.query('UNLOCK TABLES');
              await connection.end();
            },
          };
        },
        close: () => db.end(),
      };
    },
  ],
];

/** `promise`'s value, or `'still blocked'` when it has not settled after `ms` (the lock is still held then). */
async function orBlocked<T>(promise: Promise<T>, ms = 15_000): Promise<T | 'still blocked'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<'still blocked'>((resolve) => {
        timer = setTimeout(() => resolve('still blocked'), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(servers)('a lease call blocked by a table lock, %s', (_name, open) => {
  let server: Server;
  let n = 0;
  let table: string;
  let events: InboxEvent[];
  beforeAll(async () => {
    server = await open();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    table = `inbox_blocked_${++n}`;
    await InboxSchema.createTable(server.db, { table });
    events = [];
  });
  const enqueue = (inbox: SqlInbox, externalId: string) =>
    inbox.enqueue({
      provider: 'stripe',
      externalId,
      orderingKey: null,
      headers: {},
      body: Buffer.from(externalId),
    });

  it('ends with an error at leaseTimeoutMs instead of waiting for the lock', async () => {
    const inbox = new SqlInbox(server.db, { table, leaseTimeoutMs: 500 });
    await enqueue(inbox, 'evt_1');
    const locker = await server.locker();
    await locker.lock(table);
    try {
      const leased = await orBlocked(
        inbox.lease({ providers: ['stripe'], limit: 5, leaseMs: 1000 }).then(
          () => 'leased',
          (error: unknown) => error,
        ),
      );
      expect(leased).toBeInstanceOf(Error);
    } finally {
      await locker.unlock();
    }
    // Nothing was leased: the delivery is still there for the next lease call.
    expect(await inbox.lease({ providers: ['stripe'], limit: 5, leaseMs: 1000 })).toHaveLength(1);
  });

  it('worker.stop() returns while the lease call is blocked and says so; what the call leases later goes back at once', async () => {
    // A long lease bound: only stop()'s own timeout can end the wait here.
    const inbox = new SqlInbox(server.db, { table, leaseTimeoutMs: 60_000 });
    await enqueue(inbox, 'evt_1');
    const ran: string[] = [];
    const worker = createInboxWorker({
      inbox,
      store: new InMemoryStore(),
      handlers: { stripe: async (delivery) => void ran.push(delivery.externalId) },
      pollIntervalMs: 20,
      onEvent: (event) => void events.push(event),
    });
    const locker = await server.locker();
    await locker.lock(table);
    let stopped: unknown;
    try {
      worker.start();
      await sleep(300); // the worker's first lease call is waiting on the lock
      stopped = await orBlocked(worker.stop({ timeoutMs: 500 }).then(() => 'stopped'));
    } finally {
      await locker.unlock();
    }
    expect(stopped).toBe('stopped');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'store-error',
        operation: 'lease',
        error: expect.objectContaining({ message: expect.stringContaining('stop') }),
      }),
    );
    // The lease call goes through once the lock is gone; the stopped worker gives its lease back.
    for (let i = 0; i < 100 && !events.some((e) => e.type === 'given-back'); i++) await sleep(20);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'given-back', reason: 'shutdown' }),
    );
    expect(ran).toEqual([]);
    expect(await inbox.find('stripe', 'evt_1')).toMatchObject({
      status: 'pending',
      failures: 0,
    });
  });

  it('relay.stop() returns while its lease call is blocked and says so', async () => {
    const inbox = new SqlInbox(server.db, { table, leaseTimeoutMs: 60_000 });
    await enqueue(inbox, 'evt_1');
    const sent: number[] = [];
    const relay = createInboxRelay({
      inbox,
      providers: ['stripe'],
      send: async (jobs) => void sent.push(...jobs.map((job) => job.id)),
      onEvent: (event) => void events.push(event),
    });
    const locker = await server.locker();
    await locker.lock(table);
    let stopped: unknown;
    try {
      relay.start();
      await sleep(300);
      stopped = await orBlocked(relay.stop({ timeoutMs: 500 }).then(() => 'stopped'));
    } finally {
      await locker.unlock();
    }
    expect(stopped).toBe('stopped');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'store-error', operation: 'lease' }),
    );
  });
});
