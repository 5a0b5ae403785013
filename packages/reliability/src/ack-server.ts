/**
 * @module The inbox endpoint as its own process (`fork` with test-support/register), for the group
 * commit durability proof: the real Express adapter's `inbox()` over a `SqlInbox` with group commit
 * on a durable database. It reports the size of each committed batch to the parent, so the proof
 * can tell that deliveries were in fact committed together before it SIGKILLs this process.
 */
import Database from 'better-sqlite3';
import express from 'express';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { inbox } from '@webhook-idempotency/express';
import { SqlInbox, type SqlConnection } from '@webhook-idempotency/sql';

/** What the parent passes as the first argument (JSON). */
export interface AckServerConfig {
  readonly dialect: 'postgres' | 'mysql' | 'sqlite';
  /** A server's URL, or the SQLite file. */
  readonly url: string;
  readonly table: string;
  /** The shared secret a delivery must carry in `x-token` to be stored. */
  readonly token: string;
}

/** Messages to the parent. */
export type AckServerMessage =
  | { readonly type: 'ready'; readonly port: number }
  | { readonly type: 'commit'; readonly deliveries: number };

function connect(config: AckServerConfig): SqlConnection {
  if (config.dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, max: 8 });
    pool.on('error', () => undefined);
    return pool;
  }
  if (config.dialect === 'mysql') return mysql.createPool({ uri: config.url, connectionLimit: 8 });
  const db = new Database(config.url);
  db.pragma('journal_mode = WAL');
  // Durable: every commit reaches the disk before it returns.
  db.pragma('synchronous = FULL');
  return db;
}

const config = JSON.parse(process.argv[2] ?? '{}') as AckServerConfig;
const send = (message: AckServerMessage) => process.send?.(message);
const deliveries = new SqlInbox(connect(config), {
  table: config.table,
  groupCommit: { onCommit: (size) => send({ type: 'commit', deliveries: size }) },
});

const app = express();
app.post(
  '/webhooks',
  express.raw({ type: '*/*' }),
  inbox({
    inbox: deliveries,
    provider: 'acme',
    key: (req) => req.get('x-delivery-id'),
    verify: (req) => req.get('x-token') === config.token,
  }),
);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  send({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
