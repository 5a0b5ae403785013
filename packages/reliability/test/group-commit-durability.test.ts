/**
 * @module Group commit never acknowledges what a crash could lose. Per database (PostgreSQL and
 * MariaDB with durable settings, a SQLite file with `synchronous = FULL`): the real inbox endpoint
 * runs in its own process, 48 concurrent clients keep it saturated with new deliveries, and once
 * it has committed batches of more than one delivery the test SIGKILLs it mid-stream. The
 * database server is then SIGKILLed too and started again (crash recovery). Every delivery that
 * was answered 200 is in the table afterwards.
 *
 * The servers are reached through a proxy that delays every packet by a few milliseconds, so a
 * batch's COMMIT is in flight long enough for the kill to land inside it: an endpoint that
 * answered before its commit returned would lose acknowledged deliveries here. (SQLite's driver is
 * synchronous: a batch commits before the event loop can answer anyone.)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { InboxSchema } from '@webhook-idempotency/sql';
import { bySize } from '../../../test-support/proof-size';
import { FaultProxy } from '../src/fault-proxy';
import type { AckServerConfig, AckServerMessage } from '../src/ack-server';
import {
  type KillableDatabase,
  startDurableMariadb,
  startDurablePostgres,
} from '../src/durable-databases';

const SERVER = join(__dirname, '..', 'src', 'ack-server.ts');
const TABLE = 'webhook_inbox';
const TOKEN = 'group-commit-secret';
const CLIENTS = 48;
/** Acknowledgements to wait for before the kill: enough for the batches to have formed. */
const ACKS_BEFORE_KILL = bySize({ small: 600, full: 10_000, soak: 50_000 });

/** Added to every packet between the endpoint and a database server, in each direction. */
const LATENCY_MS = 3;

interface Target {
  readonly dialect: AckServerConfig['dialect'];
  /** Starts the database; resolves with its URL (or file) and how to kill and restart it. */
  start(dir: string): Promise<{ url: string; server?: KillableDatabase }>;
  /** The external ids stored in the table. */
  stored(url: string): Promise<Set<string>>;
  /** Creates the inbox table. */
  create(url: string): Promise<void>;
}

const targets: Target[] = [
  {
    dialect: 'postgres',
    async start(dir) {
      const server = await startDurablePostgres(dir);
      return { url: server.url, server };
    },
    async create(url) {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      await InboxSchema.createTable(pool);
      await pool.end();
    },
    async stored(url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(`SELECT external_id FROM ${TABLE}`);
      await client.end();
      return new Set(rows.map((row: { external_id: string }) => row.external_id));
    },
  },
  {
    dialect: 'mysql',
    async start(dir) {
      const server = await startDurableMariadb(dir);
      const admin = await mysql.createConnection(server.url);
      await admin.query('CREATE DATABASE wi_group_commit');
      await admin.end();
      return { url: `${server.url}wi_group_commit`, server };
    },
    async create(url) {
      const pool = mysql.createPool({ uri: url, connectionLimit: 1 });
      await InboxSchema.createTable(pool);
      await pool.end();
    },
    async stored(url) {
      const connection = await mysql.createConnection(url);
      const [rows] = await connection.query(`SELECT external_id FROM ${TABLE}`);
      await connection.end();
      return new Set(
        (rows as Array<{ external_id: Buffer | string }>).map((row) => String(row.external_id)),
      );
    },
  },
  {
    dialect: 'sqlite',
    async start(dir) {
      return { url: join(dir, 'inbox.db') };
    },
    async create(url) {
      const db = new Database(url);
      db.pragma('journal_mode = WAL');
      await InboxSchema.createTable(db);
      db.close();
    },
    async stored(url) {
      const db = new Database(url);
      const rows = db.prepare(`SELECT external_id FROM ${TABLE}`).all() as Array<{
        external_id: string;
      }>;
      db.close();
      return new Set(rows.map((row) => String(row.external_id)));
    },
  },
];

/** Forks the endpoint; resolves once it listens, with its port and the batch sizes it reports. */
async function startEndpoint(
  config: AckServerConfig,
): Promise<{ child: ChildProcess; port: number; largestBatch: () => number }> {
  const child = fork(SERVER, [JSON.stringify(config)], {
    execArgv: ['-r', require.resolve('esbuild-register')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let largest = 0;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`endpoint exited (${code ?? signal})`)));
    child.on('message', (message: AckServerMessage) => {
      if (message.type === 'ready') resolve(message.port);
      else largest = Math.max(largest, message.deliveries);
    });
  });
  return { child, port, largestBatch: () => largest };
}

/** POSTs one delivery; resolves with the status, or 0 when the connection failed. */
function post(agent: Agent, port: number, id: string): Promise<number> {
  return new Promise((resolve) => {
    const body = Buffer.from(JSON.stringify({ id, type: 'payment.succeeded' }));
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/webhooks',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'x-delivery-id': id,
          'x-token': TOKEN,
        },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', () => resolve(0));
      },
    );
    req.once('error', () => resolve(0));
    req.end(body);
  });
}

describe.each(targets)('group commit, endpoint SIGKILLed while saturated ($dialect)', (target) => {
  let dir: string;
  let database: { url: string; server?: KillableDatabase };
  let proxy: FaultProxy | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), `wi-group-commit-${target.dialect}-`));
    database = await target.start(dir);
    await target.create(database.url);
    if (database.server) {
      proxy = await FaultProxy.start({ host: '127.0.0.1', port: database.server.port });
      proxy.latencyMs = LATENCY_MS;
    }
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await database?.server?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every delivery answered 200 is stored, after the endpoint and then the database were killed', async () => {
    const endpoint = await startEndpoint({
      dialect: target.dialect,
      url: proxy ? proxy.urlFor(database.url) : database.url,
      table: TABLE,
      token: TOKEN,
    });
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let failedConnections = 0;
    let next = 0;
    let killed = false;
    const gone = new Promise<void>((resolve) => endpoint.child.once('exit', () => resolve()));
    const kill = () => {
      if (killed) return;
      killed = true;
      endpoint.child.kill('SIGKILL');
    };
    const client = async () => {
      while (!killed) {
        const id = `evt_${++next}`;
        const status = await post(agent, endpoint.port, id);
        if (status === 200) acknowledged.push(id);
        else if (status === 0) failedConnections++;
        else refused.push(status);
        if (acknowledged.length >= ACKS_BEFORE_KILL && endpoint.largestBatch() > 1) kill();
      }
    };
    // Bounded: the run stops by itself even if the batches never form (then the test fails below).
    const bound = setTimeout(kill, 60_000);
    await Promise.all(Array.from({ length: CLIENTS }, client));
    clearTimeout(bound);
    await gone;
    agent.destroy();

    if (database.server) {
      await database.server.kill();
      await database.server.start();
    }
    const stored = await target.stored(database.url);
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect({
      largestBatch: endpoint.largestBatch() > 1,
      refused,
      lost: lost.slice(0, 5),
      lostCount: lost.length,
    }).toEqual({ largestBatch: true, refused: [], lost: [], lostCount: 0 });
    expect(acknowledged.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
    // The kill met requests in flight: the run was saturated when it happened.
    expect(failedConnections).toBeGreaterThan(0);
  }, 120_000);
});
