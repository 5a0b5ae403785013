/**
 * Crash safety of transactional mode, with real dead processes: a worker writes its
 * business row inside the transaction and is SIGKILLed. Before commit: neither the row nor
 * `completed` survives, and once the claim is stale the next delivery runs the handler on
 * untouched data. After commit: the receipt is completed and the handler never runs again.
 * The stale threshold is 60 s (long enough that a loaded machine never lets the dead claim go
 * stale on its own before the test looks); the test makes it pass by shifting the claim back 120 s.
 */
import { IdempotencyGuard, RequestInProgress } from '@webhook-idempotency/core';
import { Schema, SqlStore, type SqlDialect } from '../src';
import { shifter } from './helpers/conformance';
import { mysqlDatabase, pgDatabase, sqliteFile } from './helpers/databases';
import { startWorker, type Worker } from './helpers/processes';
import { connect, createEffects, type Connected, type Target } from './helpers/targets';

const STALE_AFTER_SECONDS = 60;

const targets: Record<SqlDialect, () => Promise<Target>> = {
  postgres: async () => ({ dialect: 'postgres', url: await pgDatabase('wi_crash') }),
  mysql: async () => ({ dialect: 'mysql', url: await mysqlDatabase('wi_crash') }),
  sqlite: async () => ({ dialect: 'sqlite', url: sqliteFile('crash') }),
};

describe.each(Object.keys(targets) as SqlDialect[])(
  '%s: a worker killed with SIGKILL in transactional mode',
  (dialect) => {
    let target: Target;
    let connected: Connected;
    let worker: Worker | undefined;

    beforeAll(async () => {
      target = await targets[dialect]();
      connected = connect(target);
      await Schema.createTable(connected.db, { table: 'receipts' });
      await createEffects(connected.sql, 'orders');
    });
    afterEach(async () => {
      await worker?.kill();
      worker = undefined;
    });
    afterAll(() => connected.close());

    const orders = async (id: string) =>
      Number(
        (await connected.sql.query('SELECT COUNT(*) AS n FROM orders WHERE id = ?', [id])).rows[0]!
          .n,
      );
    const guard = () =>
      new IdempotencyGuard(new SqlStore(connected.db, { table: 'receipts' }), {
        staleAfterSeconds: STALE_AFTER_SECONDS,
        transactional: true,
      });
    const write =
      (id: string) =>
      async ({ transaction }: { transaction: unknown }) => {
        await connected.sql.query(
          'INSERT INTO orders (id, written_by) VALUES (?, ?)',
          [id, process.pid],
          transaction,
        );
        return 'done by the survivor';
      };
    const key = (externalId: string) => ({ provider: 'crash', externalId });

    it('before commit: the business row rolls back and the stale claim is re-run exactly once', async () => {
      const id = `before-${dialect}`;
      worker = await startWorker({
        target,
        table: 'receipts',
        effects: 'orders',
        mode: 'crash-before-commit',
        keys: [id],
        deliveries: 1,
      });
      worker.process.send({ at: 0 });
      await worker.next('written');
      await worker.kill();

      expect(await orders(id)).toBe(0);
      // The dead worker's claim is still fresh: a duplicate now is told to come back later.
      await expect(guard().run(key(id), write(id))).rejects.toBeInstanceOf(RequestInProgress);
      await shifter(connected.db, 'receipts')(2 * STALE_AFTER_SECONDS * 1000);

      const outcome = await guard().run(key(id), write(id));
      expect(outcome).toEqual({ response: 'done by the survivor', isReplay: false, attempts: 2 });
      expect(await orders(id)).toBe(1);
      const replay = await guard().run(key(id), write(id));
      expect(replay).toMatchObject({ isReplay: true, attempts: 2 });
      expect(await orders(id)).toBe(1);
    });

    it('after commit: the receipt is completed and the handler never runs again', async () => {
      const id = `after-${dialect}`;
      worker = await startWorker({
        target,
        table: 'receipts',
        effects: 'orders',
        mode: 'crash-after-commit',
        keys: [id],
        deliveries: 1,
      });
      worker.process.send({ at: 0 });
      await worker.next('committed');
      await worker.kill();

      await shifter(connected.db, 'receipts')(2 * STALE_AFTER_SECONDS * 1000);
      const handler = jest.fn(write(id));
      const outcome = await guard().run(key(id), handler);
      expect(outcome).toMatchObject({
        isReplay: true,
        attempts: 1,
        response: { by: worker.process.pid },
      });
      expect(handler).not.toHaveBeenCalled();
      expect(await orders(id)).toBe(1);
    });
  },
);
