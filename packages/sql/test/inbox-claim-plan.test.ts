/**
 * How the worker's claim reads a backlog the table's statistics have not caught up with (stored in
 * a burst, never analyzed): on every dialect it must walk the unfinished deliveries in id order
 * and stop at its limit, reading about as many rows as it leases. A plan that reads every due row
 * and sorts them makes each claim cost as much as the whole backlog, and the drain slows as the
 * backlog grows. Each database is asked in its own words (EXPLAIN ANALYZE, ANALYZE FORMAT=JSON,
 * EXPLAIN QUERY PLAN), with the claim's own statement and the setup it runs first.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { InboxSchema, SqlInbox } from '../src';
import { dialects } from '../src/dialects';
import { buildInboxQueries } from '../src/inbox/queries';
import type { SqlConnection, SqlDialect } from '../src/connections/types';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';

const BACKLOG = 6000;
const LIMIT = 8;

/** What a database's plan says about the claim's scan of the deliveries (alias `d`). */
interface Scan {
  /** Rows of the deliveries table the scan read, where the database counts them. */
  readonly rowsRead?: number;
  /** True when the rows were sorted after the scan rather than read in id order. */
  readonly sorted: boolean;
}

interface Target {
  readonly db: SqlConnection;
  readonly dialect: SqlDialect;
  /** Runs the claim's setup and its SELECT (placeholders as `?`) under the database's plan reader. */
  explain(setup: string | null, select: string, params: unknown[]): Promise<Scan>;
  close(): Promise<void>;
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'PostgreSQL (EXPLAIN ANALYZE)',
    async () => {
      const db = new pg.Pool({ connectionString: await pgDatabase('wi_inbox_claim_plan'), max: 4 });
      return {
        db,
        dialect: 'postgres',
        async explain(setup, select, params) {
          const client = await db.connect();
          try {
            await client.query('BEGIN');
            if (setup) await client.query(setup);
            let n = 0;
            const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
              `EXPLAIN (ANALYZE, FORMAT JSON) ${select.replace(/\?/g, () => `$${++n}`)}`,
              params,
            );
            const find = (node: PlanNode, sorted: boolean): Scan & { node?: PlanNode } => {
              if (node.Alias === 'd') return { node, sorted };
              for (const child of node.Plans ?? []) {
                const hit = find(child, sorted || node['Node Type'] === 'Sort');
                if (hit.node) return hit;
              }
              return { sorted };
            };
            const { node, sorted } = find(rows[0]!['QUERY PLAN'][0]!.Plan, false);
            const count = (field: string) => Number(node?.[field] ?? 0);
            return {
              sorted,
              rowsRead:
                count('Actual Rows') * Math.max(1, count('Actual Loops')) +
                count('Rows Removed by Filter') +
                count('Rows Removed by Index Recheck'),
            };
          } finally {
            await client.query('ROLLBACK');
            client.release();
          }
        },
        close: () => db.end(),
      };
    },
  ],
  [
    'MariaDB (ANALYZE FORMAT=JSON)',
    async () => {
      const db = mysql.createPool({
        uri: await mysqlDatabase('wi_inbox_claim_plan'),
        connectionLimit: 4,
      });
      return {
        db,
        dialect: 'mysql',
        async explain(setup, select, params) {
          const connection = await db.getConnection();
          try {
            await connection.beginTransaction();
            if (setup) await connection.query(setup);
            // ANALYZE goes before the statement; the bound's leading `SET STATEMENT … FOR` comment
            // is left out (it changes limits, not the plan).
            const statement = select.replace(/^\/\*M!.*?\*\/ /, '');
            const [rows] = await connection.query<mysql.RowDataPacket[]>(
              `ANALYZE FORMAT=JSON ${statement}`,
              params,
            );
            type Node = { [key: string]: unknown };
            const find = (node: Node, sorted: boolean): (Scan & { table: Node }) | undefined => {
              const table = node.table as Node | undefined;
              if (table?.table_name === 'd') return { table, sorted };
              for (const [key, value] of Object.entries(node))
                if (typeof value === 'object' && value !== null) {
                  const hit = find(value as Node, sorted || key === 'filesort');
                  if (hit) return hit;
                }
              return undefined;
            };
            const hit = find(JSON.parse(String(rows[0]!.ANALYZE)) as Node, false);
            return {
              sorted: hit?.sorted ?? true,
              rowsRead: Number(hit?.table.r_rows ?? Number.NaN) * Number(hit?.table.r_loops ?? 1),
            };
          } finally {
            await connection.rollback();
            connection.release();
          }
        },
        close: () => db.end(),
      };
    },
  ],
  [
    'SQLite (EXPLAIN QUERY PLAN)',
    async () => {
      const db = new Database(sqliteFile('inbox-claim-plan'));
      return {
        db,
        dialect: 'sqlite',
        async explain(setup, select, params) {
          if (setup) db.exec(setup);
          const plan = db.prepare(`EXPLAIN QUERY PLAN ${select}`).all(...params) as Array<{
            detail: string;
          }>;
          // SQLite reports no row counts; a sort shows as a temporary B-tree for the ORDER BY.
          return { sorted: plan.some((step) => /TEMP B-TREE FOR ORDER BY/.test(step.detail)) };
        },
        async close() {
          db.close();
        },
      };
    },
  ],
];

describe.each(targets)('the claim over a fresh backlog, %s', (_name, open) => {
  let target: Target;

  beforeAll(async () => {
    target = await open();
    await InboxSchema.createTable(target.db);
    const inbox = new SqlInbox(target.db);
    const body = Buffer.from('{"type":"payment.succeeded"}');
    for (let i = 0; i < BACKLOG; i += 250)
      await Promise.all(
        Array.from({ length: 250 }, (_, j) =>
          inbox.enqueue({
            provider: 'stripe',
            externalId: `evt_${i + j}`,
            orderingKey: null,
            headers: {},
            body,
          }),
        ),
      );
    // A few deliveries already leased and finished, as a running worker leaves them.
    const claimed = await inbox.lease({ providers: ['stripe'], limit: 20, leaseMs: 60_000 });
    for (const delivery of claimed.slice(0, 10)) await inbox.complete(delivery);
  });

  afterAll(() => target.close());

  // As a worker claims (every expired lease taken over), and as a relay that asks its queue
  // first claims (only the listed expired leases taken over, two here).
  it.each([
    ['every expired lease', true, []],
    ['two listed leases', 2, [1, 1, 2, 1]],
  ] as const)(
    `reads the unfinished deliveries in id order and stops at its limit (${LIMIT} of ${BACKLOG}), taking over %s`,
    async (_what, takeOver, leases) => {
      const sql = buildInboxQueries(dialects[target.dialect], 'webhook_inbox', true);
      const bound = dialects[target.dialect].inbox.boundLease(
        sql.leaseSelect(1, false, takeOver),
        5000,
      );
      const scan = await target.explain(bound.setup, bound.select, ['stripe', ...leases, LIMIT]);
      expect(scan.sorted).toBe(false);
      // The ten leased ones ahead of the due rows may be read and passed over; never the backlog.
      if (scan.rowsRead !== undefined) expect(scan.rowsRead).toBeLessThanOrEqual(LIMIT + 20);
    },
  );
});
