/**
 * Across processes: 4 worker processes race 200 deliveries of the same keys against one
 * PostgreSQL database, one MariaDB database and one SQLite file. A side-effect table in the same
 * database shows the handler ran exactly once per key; every other delivery was a replay or
 * "in progress".
 */
import { Schema, type SqlDialect } from '../src';
import type { RaceCounts } from './helpers/child';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import { startWorker, type Worker } from './helpers/processes';
import { connect, createEffects, type Target } from './helpers/targets';

const WORKERS = 4;
const DELIVERIES = 200;
const KEYS = ['evt_1', 'evt_2', 'evt_3'];

const targets: Record<SqlDialect, () => Promise<Target>> = {
  postgres: async () => ({ dialect: 'postgres', url: await pgDatabase('wi_cross_process') }),
  mysql: async () => ({ dialect: 'mysql', url: await mysqlDatabase('wi_cross_process') }),
  sqlite: async () => ({ dialect: 'sqlite', url: sqliteFile('cross-process') }),
};

describe.each(Object.keys(targets) as SqlDialect[])(
  `%s: ${WORKERS} processes race the same deliveries`,
  (dialect) => {
    let workers: Worker[] = [];
    afterEach(async () => {
      await Promise.all(workers.map((w) => w.kill()));
      workers = [];
    });

    it(`runs the handler exactly once per key out of ${DELIVERIES} deliveries each`, async () => {
      const target = await targets[dialect]();
      const { db, sql, close } = connect(target);
      try {
        await Schema.createTable(db, { table: 'receipts' });
        await createEffects(sql, 'effects');
        const task = {
          target,
          table: 'receipts',
          effects: 'effects',
          mode: 'race',
          keys: KEYS,
          deliveries: DELIVERIES / WORKERS,
        } as const;
        workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(task)));
        const at = Date.now() + 200;
        for (const worker of workers) worker.process.send({ at });
        const results = await Promise.all(
          workers.map((w) => w.next<{ type: 'result'; counts: RaceCounts }>('result')),
        );

        for (const key of KEYS) {
          const perKey = results.map((r) => r.counts[key]!);
          expect(perKey.flatMap((c) => c.errors)).toEqual([]);
          expect(perKey.reduce((n, c) => n + c.ran, 0)).toBe(1);
          expect(perKey.reduce((n, c) => n + c.ran + c.replayed + c.inProgress, 0)).toBe(
            DELIVERIES,
          );
        }
        const { rows } = await sql.query(
          'SELECT id, COUNT(*) AS n FROM effects GROUP BY id ORDER BY id',
          [],
        );
        expect(rows.map((r) => [r.id, Number(r.n)])).toEqual(KEYS.map((k) => [k, 1]));
        const receipts = await sql.query(
          "SELECT COUNT(*) AS n FROM receipts WHERE status = 'completed' AND attempts = 1",
          [],
        );
        expect(Number(receipts.rows[0]!.n)).toBe(KEYS.length);
      } finally {
        await close();
      }
    });
  },
);
