/**
 * SqlStore over postgres-js (`fromPostgres`): the whole store contract, prepared and unprepared,
 * and the guard's cases with the business write made through the transaction's own `sql`, typed
 * from the store (no cast).
 */
import postgres from 'postgres';
import { SqlStore } from '../src';
import { fromPostgres } from '../src/postgres-js';
import { pgDatabase } from './helpers/databases';
import { sqlConformance } from './helpers/conformance';
import { guardCases } from './helpers/guard-cases';

const db = sqlConformance('SqlStore (postgres-js)', async () => {
  const sql = postgres(await pgDatabase('wi_postgres_js'), { max: 10, onnotice: () => undefined });
  return { db: fromPostgres(sql), close: () => sql.end() };
});

// The handle is the transaction's `sql`: its tagged template binds `id`.
guardCases(db, (tx, id) => tx`INSERT INTO orders (id) VALUES (${id})`);

it('runs unprepared when preparedStatements is false (a transaction pooler)', async () => {
  const store = new SqlStore(db(), { table: 'receipts_conformance', preparedStatements: false });
  const key = { provider: 'stripe', externalId: 'evt_unprepared' };
  expect(await store.claim(key, { now: Date.now(), fingerprint: null } as never)).toMatchObject({
    won: true,
  });
});

it('refuses an instance that transforms result columns (they are the store’s own), naming db', async () => {
  const camel = postgres('postgres://127.0.0.1:1/none', { transform: postgres.camel });
  expect(() => fromPostgres(camel)).toThrow(
    expect.objectContaining({
      name: 'ConfigError',
      option: 'db',
      message: expect.stringContaining('column'),
    }),
  );
  await camel.end();
});

it('refuses what is not a postgres-js instance, naming db', () => {
  expect(() => fromPostgres((() => undefined) as never)).toThrow(
    expect.objectContaining({ name: 'ConfigError', option: 'db' }),
  );
});
