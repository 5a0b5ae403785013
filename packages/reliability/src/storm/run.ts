/**
 * @module One storm against one database: creates the tables, starts the app servers, sends the
 * deliveries while killing servers and the database at set points of the run, then reads the
 * receipts and business rows back and sums up what every delivery id got.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { Schema, type SqlConnection, type SqlDialect } from '@webhook-idempotency/sql';
import type { KillableDatabase } from '../durable-databases';
import { sendStorm, stormId, type StormCounts, type StormPlan } from './client';
import { startCluster, type AppCrash } from './cluster';
import { type InjectedFault, scheduleFaults, serverKillSteps } from './faults';
import { STORM_ORM, STORM_PROVIDER, type StormConnection } from './config';

export type { InjectedFault } from './faults';

/** The database a storm runs against. */
export interface StormTarget {
  readonly dialect: SqlDialect;
  /** What the servers connect to: a server URL with its database, or the SQLite file's path. */
  readonly url: string;
  /** The server the storm kills and restarts once; absent for SQLite (no server to kill). */
  readonly database?: KillableDatabase;
}

/** Size and faults of a storm. */
export interface StormOptions extends StormPlan {
  /**
   * One entry per app server process: how that slot connects (the plain driver, or the ORM the
   * storm proves on the target's database; see {@link StormConnection}).
   */
  readonly servers: readonly StormConnection[];
  readonly staleAfterSeconds: number;
  /** Connections in each server's pool. */
  readonly poolSize: number;
  /** Milliseconds each handler spends inside its transaction after the business write. */
  readonly handlerDelayMs: number;
  /**
   * Server SIGKILLs: which slot, at which fraction of finished deliveries, and how: `now` (from
   * outside, whatever the server is doing) or `in-handler` (the server kills itself in its next
   * handler, after the business write and before the commit). Each is restarted at once.
   */
  readonly serverKills: ReadonlyArray<{
    readonly at: number;
    readonly slot: number;
    readonly how: 'now' | 'in-handler';
  }>;
  /** Fraction of finished deliveries at which the database is SIGKILLed and restarted (when the target has a server). */
  readonly databaseKillAt: number;
}

/** What a storm found. Every list must be empty and `crashes` too for the storm to pass. */
export interface StormReport {
  readonly dialect: SqlDialect;
  readonly counts: StormCounts;
  readonly durationMs: number;
  readonly faults: readonly InjectedFault[];
  readonly crashes: readonly AppCrash[];
  /** Receipts with `attempts > 1`: handler runs that were rolled back and taken over (or failed and run again). */
  readonly reruns: number;
  readonly problems: {
    readonly without200: string[];
    readonly notOneBusinessRow: string[];
    readonly notCompleted: string[];
    readonly mismatchedReplays: string[];
    readonly tokenNotCommitted: string[];
    readonly severalFirstRuns: string[];
    /** Ids whose handler was killed before its commit and whose receipt does not show a second attempt. */
    readonly notTakenOver: string[];
  };
  /** Ids whose handler was SIGKILLed after its business write, before the commit. */
  readonly killedInHandler: readonly string[];
  /** Ids whose committed first answer came from a server of each connection kind. */
  readonly committedVia: Readonly<Record<StormConnection, number>>;
  /** The one-line summary printed per database. */
  readonly summary: string;
}

/** The business table a storm's handlers insert one row per run into (event id, token, pid). */
export const EFFECTS = 'storm_effects';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Rows = Array<Record<string, unknown>>;

/** The test's own connection to the target: the store's kind of handle plus a `?` query helper. */
export interface Admin {
  readonly db: SqlConnection;
  query(sql: string, params?: unknown[]): Promise<Rows>;
  close(): Promise<void>;
}

/** The test's own connection to `target` (a pool of 2, or the SQLite file). */
export function openAdmin(target: StormTarget): Admin {
  if (target.dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: 2 });
    pool.on('error', () => undefined);
    return {
      db: pool,
      query: async (sql, params = []) => {
        let n = 0;
        return (
          await pool.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as Rows;
      },
      close: () => pool.end(),
    };
  }
  if (target.dialect === 'mysql') {
    const pool = mysql.createPool({ uri: target.url, connectionLimit: 2 });
    return {
      db: pool,
      query: async (sql, params = []) => (await pool.query(sql, params))[0] as Rows,
      close: () => pool.end(),
    };
  }
  const db = new Database(target.url, { timeout: 20_000 });
  db.pragma('journal_mode = WAL');
  return {
    db,
    query: async (sql, params = []) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as Rows;
      statement.run(...params);
      return [];
    },
    close: async () => void db.close(),
  };
}

/** The business table's DDL per dialect (no unique index: a second row of one id is what a storm counts). */
export const EFFECTS_DDL: Record<SqlDialect, string> = {
  postgres: `CREATE TABLE ${EFFECTS} (seq BIGSERIAL PRIMARY KEY, event_id VARCHAR(64) NOT NULL, token VARCHAR(64) NOT NULL, pid INTEGER NOT NULL)`,
  mysql: `CREATE TABLE ${EFFECTS} (seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, event_id VARCHAR(64) NOT NULL, token VARCHAR(64) NOT NULL, pid INTEGER NOT NULL) ENGINE=InnoDB`,
  sqlite: `CREATE TABLE ${EFFECTS} (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id VARCHAR(64) NOT NULL, token VARCHAR(64) NOT NULL, pid INTEGER NOT NULL)`,
};

/** Runs one storm against `target` and reports what it found (it does not assert: the test does). */
export async function runStorm(
  label: string,
  target: StormTarget,
  options: StormOptions,
): Promise<StormReport> {
  const admin = openAdmin(target);
  try {
    await Schema.createTable(admin.db);
    await admin.query(EFFECTS_DDL[target.dialect]);
  } finally {
    await admin.close();
  }

  const cluster = await startCluster(
    {
      dialect: target.dialect,
      url: target.url,
      staleAfterSeconds: options.staleAfterSeconds,
      effects: EFFECTS,
      poolSize: options.poolSize,
      handlerDelayMs: options.handlerDelayMs,
    },
    options.servers,
  );
  const total = options.ids * options.perId;
  const killedInHandler: string[] = [];
  const steps = serverKillSteps(cluster, options.serverKills, killedInHandler);
  const { database } = target;
  if (database) {
    steps.push({
      at: options.databaseKillAt,
      what: `SIGKILL ${database.kind} + restart`,
      run: async (began) => {
        began();
        await database.kill();
        await sleep(200);
        await database.start();
      },
    });
  }
  const schedule = scheduleFaults(steps, total);
  const { faults } = schedule;

  let traffic: Awaited<ReturnType<typeof sendStorm>>;
  // WI_STORM_DEBUG=1: a progress line every 2 s on stderr (jest buffers console output until the test ends).
  const ticker =
    process.env.WI_STORM_DEBUG === '1'
      ? setInterval(
          () =>
            process.stderr.write(
              `[storm ${label}] ${schedule.finished}/${total} finished, crashes ${cluster.crashes.length}, faults ${faults.map((f) => f.what).join('; ')}\n`,
            ),
          2_000,
        )
      : undefined;
  try {
    traffic = await sendStorm(cluster.ports, options, schedule.progress, schedule.hold);
    await schedule.end();
    if (schedule.failure) throw schedule.failure.error;
    await cluster.settle();
  } finally {
    clearInterval(ticker);
    await schedule.end();
    await cluster.stop();
  }

  // Read back what the database kept.
  const check = openAdmin(target);
  let receipts: Rows;
  let effects: Rows;
  try {
    receipts = await check.query(
      `SELECT external_id, status, attempts FROM webhook_receipts WHERE provider = ?`,
      [STORM_PROVIDER],
    );
    effects = await check.query(`SELECT event_id, token FROM ${EFFECTS}`);
  } finally {
    await check.close();
  }
  const statusOf = new Map(receipts.map((r) => [String(r.external_id), String(r.status)]));
  const rowsOf = new Map<string, string[]>();
  for (const row of effects) {
    const id = String(row.event_id);
    const tokens = rowsOf.get(id) ?? [];
    tokens.push(String(row.token));
    rowsOf.set(id, tokens);
  }
  const problems: StormReport['problems'] = {
    without200: [],
    notOneBusinessRow: [],
    notCompleted: [],
    mismatchedReplays: [],
    tokenNotCommitted: [],
    severalFirstRuns: [],
    notTakenOver: [],
  };
  const committedVia: Record<StormConnection, number> = { driver: 0, orm: 0 };
  const attemptsOf = new Map(receipts.map((r) => [String(r.external_id), Number(r.attempts)]));
  // The handler killed between its business write and the commit: rolled back, then taken over.
  for (const id of killedInHandler)
    if (!((attemptsOf.get(id) ?? 0) >= 2))
      problems.notTakenOver.push(`${id} (attempts ${attemptsOf.get(id)})`);
  for (let n = 0; n < options.ids; n++) {
    const id = stormId(n);
    const seen = traffic.perId.get(id);
    const tokens = rowsOf.get(id) ?? [];
    if (!seen?.first) problems.without200.push(id);
    if (tokens.length !== 1) problems.notOneBusinessRow.push(`${id} (${tokens.length} rows)`);
    if (statusOf.get(id) !== 'completed')
      problems.notCompleted.push(`${id} (${statusOf.get(id) ?? 'no receipt'})`);
    if (seen && seen.mismatches > 0) problems.mismatchedReplays.push(`${id} (${seen.mismatches})`);
    if (seen && seen.firstRuns > 1) problems.severalFirstRuns.push(`${id} (${seen.firstRuns})`);
    if (seen?.first && tokens.length === 1) {
      const { token: answered, via } = JSON.parse(seen.first.toString('utf8')) as {
        token?: string;
        via?: StormConnection;
      };
      if (via) committedVia[via]++;
      if (answered !== tokens[0])
        problems.tokenNotCommitted.push(`${id} (answered ${answered}, committed ${tokens[0]})`);
    }
  }
  const reruns = receipts.filter((r) => Number(r.attempts) > 1).length;
  const c = traffic.counts;
  const dbFault = database
    ? `db kill+restart ${faults.filter((f) => f.what.startsWith(`SIGKILL ${database.kind}`)).length}`
    : 'db kill skipped (SQLite: no server)';
  const summary =
    `storm ${label}: servers ${options.servers.map((how) => (how === 'orm' ? STORM_ORM[target.dialect] : 'driver')).join(' + ')}, first answers committed by driver servers ${committedVia.driver} / ORM servers ${committedVia.orm}, ` +
    `${c.deliveries} deliveries, ${options.ids} ids, 200s ${c.ok200} (replays ${c.replayed200}), ` +
    `409s ${c.s409}, 503s ${c.s503} (app ${c.s503App}), other 5xx ${c.other5xx}, unexpected ${c.unexpected}, ` +
    `retries ${c.retries}, conn errors ${c.connectionErrors}, timeouts ${c.timeouts}, gave up ${c.gaveUp}, ` +
    `crashes ${cluster.crashes.length}, reruns ${reruns}, server kills ${faults.filter((f) => f.what.includes('server')).length} (killed in handler: ${killedInHandler.join(', ') || 'none'}), ${dbFault}, ` +
    `duration ${(traffic.durationMs / 1000).toFixed(1)} s (Retry-After capped at ${options.retryAfterCapMs} ms, stale ${options.staleAfterSeconds} s, handler ${options.handlerDelayMs} ms in its transaction)`;
  return {
    dialect: target.dialect,
    counts: c,
    durationMs: traffic.durationMs,
    faults,
    crashes: cluster.crashes,
    reruns,
    problems,
    killedInHandler,
    committedVia,
    summary,
  };
}
