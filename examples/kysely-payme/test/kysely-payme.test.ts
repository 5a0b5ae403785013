/** The Kysely + Payme example over HTTP, on a real MariaDB: each JSON-RPC method applied once. */
import * as signers from '@webhook-idempotency/providers/testing';
import { sql } from 'kysely';
import request from 'supertest';
import { mysqlDatabase } from '@webhook-idempotency/sql/test/helpers/databases';
import { createPaymeApp, type PaymeApp } from '../src/app';
import { count } from '../src/shop';

const KEY = 'kysely-cash-desk-key-000000000000000';
const cashDesk = signers.payme({ password: KEY, url: 'https://shop.example.com/payme' });

describe('kysely-payme example', () => {
  let payme: PaymeApp;
  let run = 0;

  beforeEach(async () => {
    payme = await createPaymeApp({
      databaseUrl: await mysqlDatabase(`example_kysely_payme_${++run}`),
      paymeKey: KEY,
    });
    await payme.db.insertInto('orders').values({ id: 7, amount: 10_000, status: 'new' }).execute();
  });
  afterEach(() => payme.close());

  const send = (delivery: signers.Delivery) => signers.send.supertest(request(payme.app), delivery);
  const rpc = (method: string, params: object, id: number) =>
    send(cashDesk.rpc(method, params, { id }));
  const create = { id: 'tx-7', time: 1, amount: 10_000, account: { order_id: 7 } };

  it('a retried PerformTransaction is replayed with the current JSON-RPC id; the order is paid once', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    const first = await rpc('PerformTransaction', { id: 'tx-7' }, 2).expect(200);
    const retries = await Promise.all(
      [3, 4, 5].map((id) => rpc('PerformTransaction', { id: 'tx-7' }, id)),
    );
    expect(first.body.result).toMatchObject({ transaction: 'tx-7', state: 2 });
    for (const [i, retry] of retries.entries()) {
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual({ ...first.body, id: i + 3 });
    }
    expect(await count(payme.db, 'payments_ledger')).toBe(1);
    expect(
      await payme.db.selectFrom('orders').select('status').where('id', '=', 7).executeTakeFirst(),
    ).toEqual({
      status: 'paid',
    });
  });

  it('a business error is a definite answer: HTTP 200 with the Payme code, replayed; nothing written', async () => {
    const wrong = { ...create, id: 'tx-8', amount: 1 };
    const res = await rpc('CreateTransaction', wrong, 5).expect(200);
    expect(res.body).toMatchObject({ error: { code: -31001 }, id: 5 });
    const retry = await rpc('CreateTransaction', wrong, 6).expect(200);
    expect([retry.headers['idempotent-replayed'], retry.body.id]).toEqual(['true', 6]);
    expect(await count(payme.db, 'payme_transactions')).toBe(0);
  });

  it('a failure half-way rolls back every write of the method; the redelivery runs afresh', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    await payme.db.schema.dropTable('payments_ledger').execute();
    await rpc('PerformTransaction', { id: 'tx-7' }, 2).expect(500);
    // The transaction's UPDATEs before the failed INSERT are gone with it.
    expect(
      await payme.db.selectFrom('payme_transactions').select('state').executeTakeFirst(),
    ).toEqual({ state: 1 });
    await payme.db.schema
      .createTable('payments_ledger')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('order_id', 'integer', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('payme_id', 'varchar(64)', (c) => c.notNull())
      .execute();
    const again = await rpc('PerformTransaction', { id: 'tx-7' }, 3).expect(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(payme.db, 'payments_ledger')).toBe(1);
  });

  it('a method no route names is answered by the catch-all with JSON-RPC -32601 (HTTP 200), stored and replayed; nothing written', async () => {
    const first = await rpc('CancelTransaction', { id: 'tx-7', reason: 1 }, 6).expect(200);
    expect(first.body).toMatchObject({ error: { code: -32601 }, id: 6 });
    const retry = await rpc('CancelTransaction', { id: 'tx-7', reason: 1 }, 7).expect(200);
    expect([retry.headers['idempotent-replayed'], retry.body]).toEqual([
      'true',
      { ...first.body, id: 7 },
    ]);
    expect(await count(payme.db, 'payme_transactions')).toBe(0);
  });

  it('the read-only checks pass through before routing: CheckPerformTransaction answers on the current state, no receipt', async () => {
    const check = { amount: 10_000, account: { order_id: 7 } };
    const res = await rpc('CheckPerformTransaction', check, 8).expect(200);
    expect(res.body).toEqual({ result: { allow: true }, id: 8 });
    const { id: _id, ...unkeyed } = create;
    const keyless = await rpc('CreateTransaction', unkeyed, 9).expect(200);
    expect(keyless.body).toMatchObject({ error: { code: -32600 }, id: 9 });
    expect(await count(payme.db, 'payme_transactions')).toBe(0);
    const receipts = await sql<{ n: number }>`SELECT count(*) AS n FROM webhook_receipts`.execute(
      payme.db,
    );
    expect(Number(receipts.rows[0]!.n)).toBe(0);
  });

  it('wrong credentials are refused before any claim, with the Payme error and HTTP 200', async () => {
    const forged = cashDesk.rpc('CreateTransaction', create, { id: 9 }).forged();
    const res = await send(forged).expect(200);
    expect(res.body).toMatchObject({ error: { code: -32504 }, id: 9 });
    expect(await count(payme.db, 'payme_transactions')).toBe(0);
  });
});
