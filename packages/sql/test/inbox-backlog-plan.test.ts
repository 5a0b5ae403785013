/**
 * The backlog read (what metrics and alerts poll) must cost what the backlog and the window hold,
 * never the finished history: the unfinished deliveries come from the index over them alone, the
 * recently finished ones from `(finished_at, id)`, inside the window. Asked of PostgreSQL with
 * EXPLAIN ANALYZE (rows read per table scan) and of SQLite with EXPLAIN QUERY PLAN (the index
 * named), over a table of old finished deliveries with a small backlog and a few recent ones,
 * before and after the table's statistics are gathered.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { InboxSchema, SqlInbox } from '../src';
import { dialects } from '../src/dialects';
import { buildBacklogQueries } from '../src/inbox/backlog';
import { pgDatabase, sqliteFile } from './helpers/databases';

const HISTORY = 4000;
const UNFINISHED = 30;
const RECENT = 25;
const DAY = 86_400_000;
const LIMIT = 10_000;

/**
 * HISTORY deliveries finished two days ago, RECENT finished now, UNFINISHED pending: stored by the
 * inbox, finished here in one statement each (what a worker does one by one would take minutes).
 */
async function seed(inbox: SqlInbox, run: (statement: string) => Promise<void>): Promise<void> {
  const body = Buffer.from('{}');
  const store = (externalId: string) =>
    inbox.enqueue({ provider: 'stripe', externalId, orderingKey: null, headers: {}, body });
  for (let i = 0; i < HISTORY + RECENT; i += 250)
    await Promise.all(
      Array.from({ length: Math.min(250, HISTORY + RECENT - i) }, (_, j) => store(`old_${i + j}`)),
    );
  await run(`UPDATE webhook_inbox SET status = 'done', finished_at = received_at`);
  await run(`UPDATE webhook_inbox SET finished_at = $AGED WHERE id <= ${HISTORY}`);
  for (let i = 0; i < UNFINISHED; i++) await store(`open_${i}`);
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly Plans?: PlanNode[];
}

/** Every scan of the deliveries table in a plan: its kind, index and the rows it read. */
function scans(node: PlanNode): Array<{ type: string; index?: string; rows: number }> {
  const own =
    node['Relation Name'] === 'webhook_inbox'
      ? [
          {
            type: node['Node Type'],
            ...(node['Index Name'] ? { index: node['Index Name'] } : {}),
            rows:
              (node['Actual Rows'] ?? 0) * Math.max(1, node['Actual Loops'] ?? 1) +
              (node['Rows Removed by Filter'] ?? 0),
          },
        ]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap(scans)];
}

describe('the backlog read on PostgreSQL (EXPLAIN ANALYZE)', () => {
  let pool: pg.Pool;
  const sql = buildBacklogQueries(dialects.postgres, 'webhook_inbox');
  const explain = async (statement: string, params: unknown[]) => {
    // As the store runs it: the claim's bound first (no sort, a time limit), in one transaction.
    const { setup, select } = dialects.postgres.inbox.boundLease(statement, 5000);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      if (setup) await client.query(setup);
      let n = 0;
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${select.replace(/\?/g, () => `$${++n}`)}`,
        params,
      );
      return scans(rows[0]!['QUERY PLAN'][0]!.Plan);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await pgDatabase('wi_inbox_backlog_plan'), max: 4 });
    await InboxSchema.createTable(pool);
    await seed(new SqlInbox(pool), async (statement) => {
      await pool.query(statement.replace('$AGED', `finished_at - INTERVAL '2 days'`));
    });
  });
  afterAll(() => pool.end());

  it.each([
    ['before ANALYZE', false],
    ['after ANALYZE', true],
  ])(
    '%s: the unfinished part reads the open index only, the finished part the window only',
    async (_when, analyze) => {
      if (analyze) await pool.query('ANALYZE webhook_inbox');
      const unfinished = await explain(sql.unfinished(1), ['github', 60_000, 300_000, LIMIT]);
      expect(unfinished).toEqual([
        { type: 'Index Scan', index: 'webhook_inbox_open_idx', rows: UNFINISHED },
      ]);
      const finished = await explain(sql.finished(0), [300_000, DAY, LIMIT]);
      expect(finished).toHaveLength(1);
      expect(finished[0]!.type).toMatch(/^Index Scan/);
      expect(finished[0]!.index).toBe('webhook_inbox_finished_idx');
      expect(finished[0]!.rows).toBe(RECENT);
      // And what the store reports from them.
      const backlog = await new SqlInbox(pool).backlog({
        stuckAfterMs: 300_000,
        finishedWithinMs: DAY,
      });
      expect(backlog.providers).toEqual([
        expect.objectContaining({ provider: 'stripe', unfinished: UNFINISHED, finished: RECENT }),
      ]);
    },
  );
});

describe('the backlog read on SQLite (EXPLAIN QUERY PLAN)', () => {
  it('reads the unfinished rows through the open index and the window through (finished_at, id)', async () => {
    const db = new Database(sqliteFile('inbox-backlog-plan'));
    try {
      await InboxSchema.createTable(db);
      await seed(new SqlInbox(db), async (statement) => {
        db.prepare(statement.replace('$AGED', `finished_at - 2 * ${DAY}`)).run();
      });
      const sql = buildBacklogQueries(dialects.sqlite, 'webhook_inbox');
      const plan = (statement: string, params: unknown[]) =>
        (
          db.prepare(`EXPLAIN QUERY PLAN ${statement}`).all(...params) as Array<{ detail: string }>
        ).map((step) => step.detail);
      expect(plan(sql.unfinished(0), [300_000, LIMIT])).toContainEqual(
        expect.stringMatching(/SCAN d USING (COVERING )?INDEX webhook_inbox_open_idx/),
      );
      expect(plan(sql.finished(0), [300_000, DAY, LIMIT])).toContainEqual(
        expect.stringMatching(
          /SEARCH webhook_inbox USING INDEX webhook_inbox_finished_idx \(finished_at>\?\)/,
        ),
      );
    } finally {
      db.close();
    }
  });
});
