/**
 * `migrate` on a receipts table that an older version created, without the index the listings are
 * read through (claim time, then the key): it adds that index, says so, and leaves the rows; a
 * second run finds nothing to add. On PostgreSQL, MariaDB (whose indexes sit inside its `CREATE
 * TABLE IF NOT EXISTS`, skipped whole for an existing table) and SQLite.
 */
import { Schema, type SqlDialect } from '@webhook-idempotency/sql';
import {
  mysqlDatabase,
  pgDatabase,
  sqliteFile,
} from '@webhook-idempotency/sql/test/helpers/databases';
import { seedReceipts } from '@webhook-idempotency/sql/test/helpers/seed';
import { connect } from '@webhook-idempotency/sql/test/helpers/targets';
import { cli } from '../helpers/cli';

const INDEX = 'webhook_receipts_claimed_idx';

/** The receipts table's DDL as a version without the listing index wrote it. */
const olderDdl = (dialect: SqlDialect) =>
  Schema.statements(dialect)
    .filter((statement) => !statement.startsWith(`CREATE INDEX IF NOT EXISTS "${INDEX}"`))
    .map((statement) =>
      statement.replace(new RegExp(`,\\n {2}INDEX \`${INDEX}\` \\([^)]*\\)`), ''),
    );

/** Each database, and how its catalog says whether the table has the index (params: table, index). */
const targets: Array<[string, SqlDialect, () => Promise<{ url: string; target: string }>, string]> =
  [
    [
      'PostgreSQL',
      'postgres',
      async () => {
        const url = await pgDatabase('wi_cli_migrate_index');
        return { url, target: url };
      },
      'SELECT 1 FROM pg_indexes WHERE tablename = ? AND indexname = ?',
    ],
    [
      'MariaDB',
      'mysql',
      async () => {
        const url = await mysqlDatabase('wi_cli_migrate_index');
        return { url, target: url };
      },
      'SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1',
    ],
    [
      'SQLite',
      'sqlite',
      async () => {
        const file = sqliteFile('cli-migrate-index');
        return { url: `sqlite:${file}`, target: file };
      },
      "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?",
    ],
  ];

describe.each(targets)(
  'migrate on an older receipts table (%s)',
  (_name, dialect, open, catalog) => {
    it('adds the listing index, says so, keeps the rows; a second run adds nothing', async () => {
      const { url, target } = await open();
      const connected = connect({ dialect, url: target });
      try {
        const ddl = olderDdl(dialect);
        expect(ddl.join('\n')).not.toContain(INDEX);
        for (const statement of ddl) await connected.sql.query(statement, []);
        await seedReceipts(connected.db, 'webhook_receipts', [
          {
            provider: 'stripe',
            externalId: 'evt_1',
            status: 'completed',
            ageMs: 60_000,
            tookMs: 5,
          },
        ]);
        const present = async () =>
          (await connected.sql.query(catalog, ['webhook_receipts', INDEX])).rows.length;
        expect(await present()).toBe(0);

        const run = await cli(['migrate'], { env: { DATABASE_URL: url } });
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(
          new RegExp(
            `^Table webhook_receipts exists already in .*; added its index ${INDEX}\\.\\n$`,
          ),
        );
        expect(await present()).toBe(1);
        const again = await cli(['migrate', '--json'], { env: { DATABASE_URL: url } });
        expect(JSON.parse(again.stdout)).toMatchObject({ created: false, indexesAdded: [] });
        const { rows } = await connected.sql.query('SELECT external_id FROM webhook_receipts', []);
        expect(rows.map((row) => String(row.external_id))).toEqual(['evt_1']);
      } finally {
        await connected.close();
      }
    });
  },
);
