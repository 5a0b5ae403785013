/**
 * A batch whose items together run longer than the claim's stale time, through Express on a SQLite
 * file and on PostgreSQL, with two app servers (two connections) on one database. The batch's own
 * receipt (keyed by a digest of its item ids) is claimed while its items run one by one, each
 * under a claim of its own; once the batch's claim is stale, a concurrent duplicate of the batch
 * takes it over. What that does: the duplicate replays the items done, meets the item still
 * running (its claim is fresh) and is answered 409; no item runs twice, and the next redelivery is
 * answered 200 with nothing run again (no 409 loop). What it did wrong: the run that did every item
 * answered 409 (its batch receipt taken over, so its answer "not recorded") instead of its own
 * 2xx, making the provider redeliver a batch whose every item was booked. Now the handler's answer
 * goes out: each item is recorded on its own receipt, and the batch's only spares a redelivery
 * the item look-ups. The items run outside transactions here: an open item transaction would hold
 * the locks the duplicate's claim waits on, which is not what this is about.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import {
  IdempotencyGuard,
  type ProviderPreset,
  RequestKey,
  type Store,
} from '@webhook-idempotency/core';
import { idempotent } from '@webhook-idempotency/express';
import { Schema, SqlStore, type SqlConnection } from '@webhook-idempotency/sql';
import { watchHostProcess } from '@webhook-idempotency/test-support/host-process';

const unhandled = watchHostProcess();
const STALE_SECONDS = 2;
const STALE_MS = STALE_SECONDS * 1000;

/** A batch is a JSON array of `{ id }` events, signed by a header. */
const preset: ProviderPreset = {
  provider: 'batchy',
  keyDescription: 'id of each event',
  needsRawBody: true,
  retentionDays: 1,
  key: () => undefined,
  verify: (req) => req.headers['x-sig'] === 'good',
  items: (req) =>
    (JSON.parse(req.rawBody!.toString()) as { id: string }[]).map((event) => ({
      key: event.id,
      value: event,
    })),
};

/** One database, opened twice: what two app servers have. */
interface Kind {
  readonly name: string;
  open(): Promise<{ handles: [SqlConnection, SqlConnection]; close(): Promise<void> }>;
}

const kinds: readonly Kind[] = [
  {
    name: 'a SQLite file',
    async open() {
      const file = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'stale-batch-')), 'r.db');
      const one = new Database(file);
      one.pragma('journal_mode = WAL');
      const two = new Database(file);
      return {
        handles: [one, two],
        close: async () => {
          one.close();
          two.close();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const database = 'wi_stale_batch';
      const admin = new pg.Client({ connectionString: process.env.WI_PG_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      const url = new URL(process.env.WI_PG_URL!);
      url.pathname = `/${database}`;
      const one = new pg.Pool({ connectionString: url.toString(), max: 4 });
      const two = new pg.Pool({ connectionString: url.toString(), max: 4 });
      return { handles: [one, two], close: () => Promise.all([one.end(), two.end()]).then() };
    },
  },
];

const waitFor = async (check: () => Promise<boolean>): Promise<void> => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe.each(kinds)('a batch running longer than the stale time on $name', (kind) => {
  const servers: Server[] = [];
  let close: () => Promise<void>;
  afterEach(async () => {
    for (const server of servers.splice(0))
      await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
    expect(unhandled).toEqual([]);
  });

  it('a duplicate taking over its receipt runs no item twice, the run that did the items answers its own 200, the redelivery is replayed', async () => {
    const opened = await kind.open();
    close = opened.close;
    await Schema.createTable(opened.handles[0]);
    const guards = opened.handles.map(
      (db) =>
        new IdempotencyGuard(new SqlStore(db) as Store<unknown>, {
          staleAfterSeconds: STALE_SECONDS,
        }),
    );
    const ran: string[] = [];
    let batchKey: RequestKey | undefined;
    let entered!: () => void;
    const thirdEntered = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    /** Until the database sees the batch's own claim at least `ms` old. */
    const batchAged = (guard: IdempotencyGuard<unknown>, ms: number) =>
      waitFor(async () => ((await guard.find(batchKey!))?.claimAgeMs ?? 0) >= ms);

    const apps = guards.map((guard) => {
      const app = express();
      app.post(
        '/hook',
        express.raw({ type: '*/*' }),
        idempotent({ guard, preset }),
        async (req, res) => {
          batchKey = req.idempotency!.key;
          await req.idempotency!.batch!.each<{ id: string }>(async (event) => {
            // Each item is quick to its own claim; together they outlive the batch's.
            if (event.id === 'L1') await batchAged(guard, STALE_MS * 0.6);
            if (event.id === 'L2') await batchAged(guard, STALE_MS * 1.2);
            if (event.id === 'L3') {
              entered();
              await released;
            }
            ran.push(event.id);
          });
          res.type('text/plain').send('[accepted]');
        },
      );
      const server = app.listen(0, '127.0.0.1');
      servers.push(server);
      return server;
    });
    await Promise.all(
      apps.map((server) => new Promise((resolve) => server.once('listening', resolve))),
    );
    const body = JSON.stringify(['L1', 'L2', 'L3', 'L4'].map((id) => ({ id })));
    const post = (server: Server) =>
      request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
        .post('/hook')
        .set({ 'content-type': 'application/json', 'x-sig': 'good' })
        .send(body)
        .then((res) => res);

    const original = post(apps[0]!);
    await thirdEntered;
    const before = await guards[1]!.find(batchKey!);
    expect(before).toMatchObject({ status: 'processing', attempts: 1 });
    expect(before!.claimAgeMs).toBeGreaterThanOrEqual(STALE_MS);

    // The provider sends the batch again to the other server: it takes the stale batch receipt
    // over, replays L1 and L2, and finds L3 held (its own claim is fresh).
    const duplicate = await post(apps[1]!);
    expect([duplicate.status, duplicate.body.code]).toEqual([409, 'ERR_IDEMPOTENCY_IN_PROGRESS']);
    expect(await guards[1]!.find(batchKey!)).toMatchObject({ status: 'failed', attempts: 2 });

    release();
    const first = await original;
    expect([first.status, first.text]).toEqual([200, '[accepted]']);
    expect(ran).toEqual(['L1', 'L2', 'L3', 'L4']);
    for (const id of ['L1', 'L2', 'L3', 'L4'])
      expect(await guards[0]!.find(new RequestKey('batchy', id))).toMatchObject({
        status: 'completed',
        attempts: 1,
      });

    const redelivery = await post(apps[1]!);
    expect([redelivery.status, redelivery.text]).toEqual([200, '[accepted]']);
    const replayed = await post(apps[0]!);
    expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(ran).toEqual(['L1', 'L2', 'L3', 'L4']);
    expect(await guards[0]!.find(batchKey!)).toMatchObject({ status: 'completed', attempts: 3 });
  });
});
