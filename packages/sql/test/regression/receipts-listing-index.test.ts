/**
 * The receipts listing (`ReceiptsAdmin.list`: the dashboard's and the CLI's) reads an index in its
 * own order, on PostgreSQL, MariaDB and SQLite: the first page and every next page are an index
 * range of about `limit` rows, never a scan of the whole table plus a sort. Each database's own
 * EXPLAIN of the very statement the listing runs (`listStatement`) shows it, on a few thousand
 * analyzed receipts. And the pages are exact at any precision of `claimed_at`: on a column widened
 * to microseconds (`TIMESTAMPTZ(6)`, `DATETIME(6)`), receipts claimed within one millisecond are
 * each listed once over all pages, none skipped, none repeated.
 */
import { bySize } from '@webhook-idempotency/test-support/proof-size';
import { ReceiptsAdmin, type ReceiptSummary, Schema, type SqlDialect } from '../../src';
import { listStatement } from '../../src/admin/list';
import { adminStatements } from '../../src/admin/queries';
import type { ListOptions } from '../../src/admin/types';
import { dialects } from '../../src/dialects';
import { mysqlDatabase, pgDatabase, sqliteFile } from '../helpers/databases';
import { type Connected, connect } from '../helpers/targets';

const TABLE = 'webhook_receipts';
/**
 * Receipts in the table the plans are judged on (`pnpm test:proof`: 100,000, the size at which
 * the scans took 124–535 ms a page). MariaDB 10.11's optimizer reads a table of up to about
 * 10,000 such rows whole and sorts it rather than read 50 through the index (a few ms either
 * way); from there on, and on PostgreSQL and SQLite at any size, the index.
 */
const ROWS = bySize({ small: 15_000, full: 100_000, soak: 100_000 });
/** The time a case over the whole table is given, by its size. */
const WHOLE_TABLE_MS = bySize({ small: 30_000, full: 180_000, soak: 180_000 });
const INDEX = `${TABLE}_claimed_idx`;
const PROVIDERS = ['github', 'shopify', 'stripe'];
const BASE_MS = Date.UTC(2026, 0, 1);

/** What one database needs: how to open it, analyze, explain, and widen `claimed_at` to µs. */
interface Target {
  readonly dialect: SqlDialect;
  open(): Promise<string>;
  readonly analyze: string;
  /** Its plan of `sql`, as text; `ok` says whether an index serves it with no sort and no table scan. */
  explain(
    c: Connected,
    sql: string,
    params: readonly unknown[],
  ): Promise<{ text: string; ok: boolean }>;
  /** The DDL that widens the column to microseconds, and a µs offset added to a timestamp; none on SQLite (whole ms). */
  readonly micros?: { readonly widen: string; readonly plusMicros: (column: string) => string };
}

const targets: Array<[string, Target]> = [
  [
    'PostgreSQL',
    {
      dialect: 'postgres',
      open: () => pgDatabase('wi_listing_index'),
      analyze: `ANALYZE ${TABLE}`,
      async explain(c, sql, params) {
        const { rows } = await c.sql.query(`EXPLAIN ${sql}`, params);
        const text = rows.map((row) => String(row['QUERY PLAN'])).join('\n');
        return { text, ok: text.includes(INDEX) && !/Seq Scan|\bSort\b/.test(text) };
      },
      micros: {
        widen: `ALTER TABLE ${TABLE} ALTER COLUMN claimed_at TYPE TIMESTAMPTZ(6)`,
        plusMicros: (column) => `${column} + CAST(? AS INTEGER) * INTERVAL '1 microsecond'`,
      },
    },
  ],
  [
    'MariaDB',
    {
      dialect: 'mysql',
      open: () => mysqlDatabase('wi_listing_index'),
      analyze: `ANALYZE TABLE ${TABLE}`,
      async explain(c, sql, params) {
        const { rows } = await c.sql.query(`EXPLAIN ${sql}`, params);
        const text = rows.map((row) => JSON.stringify(row)).join('\n');
        const ok = rows.every(
          (row) => String(row.key) === INDEX && !/filesort/.test(String(row.Extra ?? '')),
        );
        return { text, ok: ok && rows.length === 1 };
      },
      micros: {
        widen: `ALTER TABLE ${TABLE} MODIFY claimed_at DATETIME(6) NOT NULL`,
        plusMicros: (column) => `${column} + INTERVAL ? MICROSECOND`,
      },
    },
  ],
  [
    'SQLite',
    {
      dialect: 'sqlite',
      open: async () => sqliteFile('listing-index'),
      analyze: 'ANALYZE',
      async explain(c, sql, params) {
        const { rows } = await c.sql.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        const text = rows.map((row) => String(row.detail)).join('\n');
        return {
          text,
          ok:
            text.includes(`INDEX ${INDEX}`) &&
            !/TEMP B-TREE|SCAN webhook_receipts\b(?! USING)/.test(text),
        };
      },
    },
  ],
];

describe.each(targets)('the receipts listing on %s', (_name, target) => {
  let c: Connected;
  const spec = dialects[target.dialect];
  const admin = adminStatements(spec, TABLE);
  const explain = (options: ListOptions) => {
    const { sql, params } = listStatement(spec, admin, options);
    return target.explain(c, sql, params);
  };

  beforeAll(async () => {
    c = connect({ dialect: target.dialect, url: await target.open() });
    await Schema.createTable(c.db);
    // Claimed a second apart, three receipts per second (one per provider): ties of claim time.
    const insert = (n: number) =>
      `INSERT INTO ${spec.quote(TABLE)} (provider, external_id, status, attempts, claimed_at, finished_at) VALUES ` +
      Array.from({ length: n }, () => `(?, ?, ?, 1, ${spec.atMs}, ${spec.atMs})`).join(', ');
    for (let start = 0; start < ROWS; start += 500) {
      const params = Array.from({ length: 500 }, (_, k) => {
        const i = start + k;
        const at = BASE_MS + Math.floor(i / 3) * 1000;
        const status = i % 50 === 0 ? 'processing' : i % 7 === 0 ? 'failed' : 'completed';
        return [PROVIDERS[i % 3], `evt_${String(i).padStart(5, '0')}`, status, at, at + 40];
      });
      await c.sql.query(insert(500), params.flat());
    }
    await c.sql.query(target.analyze, []);
  }, WHOLE_TABLE_MS);
  afterAll(() => c.close());

  it('first and next pages, newest and oldest first, read the index in order: no scan of the table, no sort', async () => {
    const receipts = new ReceiptsAdmin(c.db);
    const after = (await receipts.list({ limit: 100 }))[99]!;
    const afterOldest = (await receipts.list({ limit: 100, order: 'oldest' }))[99]!;
    for (const options of [
      { limit: 50 },
      { limit: 50, after },
      { limit: 50, order: 'oldest' as const },
      { limit: 50, order: 'oldest' as const, after: afterOldest },
      {
        limit: 50,
        claimedFrom: new Date(BASE_MS + 100_000),
        claimedBefore: new Date(BASE_MS + 600_000),
      },
      { limit: 50, claimedBefore: new Date(BASE_MS + 600_000), after },
    ]) {
      const plan = await explain(options);
      expect({ options, plan: plan.text, ok: plan.ok }).toMatchObject({ ok: true });
    }
  });

  it(
    'pages walk the whole table in order, each receipt once, with the filters kept',
    async () => {
      const receipts = new ReceiptsAdmin(c.db);
      const walk = async (options: ListOptions) => {
        const seen: ReceiptSummary[] = [];
        for (let after: ReceiptSummary | undefined; ; ) {
          const page = await receipts.list({
            ...options,
            limit: 2000,
            ...(after ? { after } : {}),
          });
          seen.push(...page);
          if (page.length < 2000) return seen;
          after = page[page.length - 1];
        }
      };
      const all = await walk({});
      expect(all.length).toBe(ROWS);
      expect(new Set(all.map((r) => r.externalId)).size).toBe(ROWS);
      const order = all.map((r) => [r.claimedAt.getTime(), r.provider, r.externalId].join(' '));
      expect(order).toEqual([...order].sort().reverse());
      const oldest = await walk({ order: 'oldest' });
      expect(oldest.map((r) => r.externalId)).toEqual(all.map((r) => r.externalId).reverse());
      const stripe = await walk({ provider: 'stripe', status: ['completed', 'failed'] });
      expect(stripe.length).toBe(
        all.filter((r) => r.provider === 'stripe' && r.status !== 'processing').length,
      );
      const range = await walk({
        claimedFrom: new Date(BASE_MS + 10_000),
        claimedBefore: new Date(BASE_MS + 20_000),
      });
      expect(range.map((r) => r.externalId)).toEqual(
        all
          .filter(
            (r) =>
              r.claimedAt.getTime() >= BASE_MS + 10_000 && r.claimedAt.getTime() < BASE_MS + 20_000,
          )
          .map((r) => r.externalId),
      );
    },
    WHOLE_TABLE_MS,
  );

  it('a cursor that is not a claim time as a listing returns it is refused, naming it', async () => {
    const receipts = new ReceiptsAdmin(c.db);
    await expect(
      receipts.list({
        after: {
          provider: 'stripe',
          externalId: 'evt_1',
          claimedAt: new Date(),
          claimedAtText: "2026-01-01'; DROP TABLE x",
        },
      }),
    ).rejects.toMatchObject({ name: 'ConfigError', option: 'after.claimedAtText' });
  });

  it(
    '51 receipts claimed within one millisecond (µs apart on a column widened to µs) are each listed once over all pages, in order',
    async () => {
      const t = spec.quote(TABLE);
      if (target.micros) await c.sql.query(target.micros.widen, []);
      // The later the claim, the smaller the key: inside the millisecond, the order by claim time
      // and the order by key disagree. Where the column holds whole milliseconds only (SQLite), the
      // 51 share one claim time and the key orders them.
      const at = BASE_MS + 5_000_000;
      const id = (i: number) => `m_${String(50 - i).padStart(2, '0')}`;
      for (let i = 0; i < 51; i++) {
        await c.sql.query(
          `INSERT INTO ${t} (provider, external_id, status, attempts, claimed_at) VALUES (?, ?, 'completed', 1, ${spec.atMs})`,
          ['micro', id(i), at],
        );
        if (target.micros)
          await c.sql.query(
            `UPDATE ${t} SET claimed_at = ${target.micros.plusMicros('claimed_at')} WHERE provider = 'micro' AND external_id = ?`,
            [i * 10 + 5, id(i)],
          );
      }
      const byClaim = Array.from({ length: 51 }, (_, i) => id(i));
      const oldestFirst = target.micros ? byClaim : [...byClaim].reverse();
      const receipts = new ReceiptsAdmin(c.db);
      for (const order of ['newest', 'oldest'] as const) {
        for (const limit of [1, 2, 7]) {
          const seen: string[] = [];
          for (let after: ReceiptSummary | undefined; ; ) {
            const page = await receipts.list({
              provider: 'micro',
              order,
              limit,
              ...(after ? { after } : {}),
            });
            seen.push(...page.map((r) => r.externalId));
            if (page.length < limit) break;
            after = page[page.length - 1];
          }
          expect({ order, limit, seen }).toEqual({
            order,
            limit,
            seen: order === 'oldest' ? oldestFirst : [...oldestFirst].reverse(),
          });
        }
      }
      const [first] = await receipts.list({ provider: 'micro', order: 'oldest', limit: 1 });
      expect(first!.claimedAtText).toBe(
        `${new Date(at).toISOString().slice(0, 23)}${target.micros ? '005' : '000'}Z`,
      );
    },
    WHOLE_TABLE_MS,
  );
});
