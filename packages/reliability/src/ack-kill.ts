/**
 * @module The kill -9 run of the inbox endpoint with group commit, shared by the durability test
 * (small, in `pnpm test`) and the benchmarks (big): the databases it runs on, the endpoint
 * (ack-server.ts) in its own process, clients that keep it saturated until it is SIGKILLed, and
 * the count afterwards of the acknowledged deliveries the table holds once the database server
 * was killed and started again (crash recovery).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { InboxSchema } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { AckServerConfig, AckServerMessage } from './ack-server';
import {
  type KillableDatabase,
  startDurableMariadb,
  startDurablePostgres,
} from './durable-databases';

/** The deliveries table the endpoint writes. */
export const ACK_TABLE = 'webhook_inbox';
/** The secret a delivery carries in `x-token` to be stored. */
export const ACK_TOKEN = 'group-commit-secret';

/** A database the run starts where it is told, with the endpoint's table on it. */
export interface AckTarget {
  readonly dialect: AckServerConfig['dialect'];
  /** A name for reports. */
  readonly name: string;
  /** Starts the database in `dir`; resolves with its URL (or file) and, for a server, how to kill and restart it. */
  start(dir: string): Promise<{ url: string; server?: KillableDatabase }>;
  /** Creates the inbox table. */
  create(url: string): Promise<void>;
  /** The external ids stored in the table. */
  stored(url: string): Promise<Set<string>>;
}

/** Durable PostgreSQL 15, durable MariaDB, and a SQLite file with `synchronous = FULL`. */
export const ackTargets: readonly AckTarget[] = [
  {
    dialect: 'postgres',
    name: 'PostgreSQL 15 (fsync, synchronous_commit on)',
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
      const { rows } = await client.query(`SELECT external_id FROM ${ACK_TABLE}`);
      await client.end();
      return new Set(rows.map((row: { external_id: string }) => row.external_id));
    },
  },
  {
    dialect: 'mysql',
    name: 'MariaDB 10.11 (innodb_flush_log_at_trx_commit=1)',
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
      const [rows] = await connection.query(`SELECT external_id FROM ${ACK_TABLE}`);
      await connection.end();
      return new Set(
        (rows as Array<{ external_id: Buffer | string }>).map((row) => String(row.external_id)),
      );
    },
  },
  {
    dialect: 'sqlite',
    name: 'SQLite file (WAL, synchronous=FULL)',
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
      const rows = db.prepare(`SELECT external_id FROM ${ACK_TABLE}`).all() as Array<{
        external_id: string;
      }>;
      db.close();
      return new Set(rows.map((row) => String(row.external_id)));
    },
  },
];

/** The endpoint's process, its port, and the largest batch it reported committing. */
export interface AckEndpoint {
  readonly child: ChildProcess;
  readonly port: number;
  largestBatch(): number;
}

/** Forks the endpoint (ack-server.ts, through test-support/register); resolves once it listens. */
export async function startAckEndpoint(config: AckServerConfig): Promise<AckEndpoint> {
  const child = fork(join(__dirname, 'ack-server.ts'), [JSON.stringify(config)], {
    execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
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
          'x-token': ACK_TOKEN,
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

/** What the clients saw until the endpoint died. */
export interface LoadOutcome {
  /** Ids answered 200, in the order of the answers. */
  readonly acknowledged: readonly string[];
  /** Statuses other than 200. */
  readonly refused: readonly number[];
  /** Requests whose connection failed (in flight when the kill landed). */
  readonly failedConnections: number;
  /** From the first request to the kill, in seconds. */
  readonly seconds: number;
}

/**
 * Keeps `clients` requests in flight against the endpoint, each a new delivery, until `killWhen`
 * (asked after every answer) says so or `boundMs` passed; then SIGKILLs the endpoint and resolves
 * once it is gone.
 */
export async function saturateAndKill(
  endpoint: AckEndpoint,
  options: {
    readonly clients: number;
    readonly killWhen: (state: { acknowledged: number; elapsedMs: number }) => boolean;
    readonly boundMs: number;
  },
): Promise<LoadOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.clients });
  const acknowledged: string[] = [];
  const refused: number[] = [];
  let failedConnections = 0;
  let next = 0;
  let killedAt: number | undefined;
  const started = Date.now();
  const gone = new Promise<void>((resolve) => endpoint.child.once('exit', () => resolve()));
  const kill = () => {
    if (killedAt !== undefined) return;
    killedAt = Date.now();
    endpoint.child.kill('SIGKILL');
  };
  const client = async () => {
    while (killedAt === undefined) {
      const id = `evt_${++next}`;
      const status = await post(agent, endpoint.port, id);
      if (status === 200) acknowledged.push(id);
      else if (status === 0) failedConnections++;
      else refused.push(status);
      if (options.killWhen({ acknowledged: acknowledged.length, elapsedMs: Date.now() - started }))
        kill();
    }
  };
  // Bounded: the run stops by itself even if `killWhen` never holds (the caller sees it).
  const bound = setTimeout(kill, options.boundMs);
  await Promise.all(Array.from({ length: options.clients }, client));
  clearTimeout(bound);
  await gone;
  agent.destroy();
  return {
    acknowledged,
    refused,
    failedConnections,
    seconds: ((killedAt ?? Date.now()) - started) / 1000,
  };
}

/**
 * SIGKILLs the database server (when there is one) and starts it again, then reads the table:
 * how many of `acknowledged` it holds, and the ones it lost.
 */
export async function afterCrash(
  target: AckTarget,
  database: { readonly url: string; readonly server?: KillableDatabase },
  acknowledged: readonly string[],
): Promise<{ stored: number; present: number; lost: string[] }> {
  if (database.server) {
    await database.server.kill();
    await database.server.start();
  }
  const stored = await target.stored(database.url);
  const lost = acknowledged.filter((id) => !stored.has(id));
  return { stored: stored.size, present: acknowledged.length - lost.length, lost };
}
