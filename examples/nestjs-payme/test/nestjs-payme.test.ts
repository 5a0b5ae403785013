/** The Nest Payme example over HTTP, on both platforms. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
import { createPaymeApp, type PaymeApp } from '../src/app';

const KEY = 'test-cash-desk-key-00000000000000000';
const cashDesk = signers.payme({ password: KEY, url: 'https://shop.example.com/payme' });

describe.each(['express', 'fastify'] as const)('nestjs-payme example on %s', (platform) => {
  let dir: string;
  let payme: PaymeApp;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nestjs-payme-'));
    payme = await createPaymeApp({ file: join(dir, 'shop.sqlite'), paymeKey: KEY, platform });
    payme.shop.createOrder(7, 10_000);
  });

  afterEach(async () => {
    await payme.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const server = () => payme.app.getHttpServer();
  const send = (delivery: signers.Delivery) => signers.send.supertest(request(server()), delivery);
  const rpc = (method: string, params: object, id: number) =>
    send(cashDesk.rpc(method, params, { id }));
  const create = { id: 'tx-7', time: 1, amount: 10_000, account: { order_id: 7 } };
  const count = (table: string) =>
    payme.shop.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };

  it('a retried PerformTransaction is replayed with the current JSON-RPC id; the order is paid once', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    const first = await rpc('PerformTransaction', { id: 'tx-7' }, 2).expect(200);
    const retry = await rpc('PerformTransaction', { id: 'tx-7' }, 3).expect(200);
    expect(first.body.result).toMatchObject({ transaction: 'tx-7', state: 2 });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual({ ...first.body, id: 3 });
    expect(payme.runs.get('PerformTransaction:tx-7')).toBe(1);
    expect(count('payments_ledger')).toEqual({ n: 1 });
  });

  it('CheckTransaction passes through unguarded and reports the current state every time', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    const before = await rpc('CheckTransaction', { id: 'tx-7' }, 2).expect(200);
    await rpc('PerformTransaction', { id: 'tx-7' }, 3).expect(200);
    const after = await rpc('CheckTransaction', { id: 'tx-7' }, 4).expect(200);
    expect([before.body.result.state, after.body.result.state]).toEqual([1, 2]);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(payme.runs.has('CheckTransaction:tx-7')).toBe(false);
  });

  it('a business error is a definite answer: HTTP 200 with the Payme code, replayed on a retry', async () => {
    const wrong = { ...create, id: 'tx-8', amount: 1 };
    const res = await rpc('CreateTransaction', wrong, 5).expect(200);
    expect(res.body).toMatchObject({ error: { code: -31001 }, id: 5 });
    const retry = await rpc('CreateTransaction', wrong, 6).expect(200);
    expect([retry.headers['idempotent-replayed'], retry.body.id]).toEqual(['true', 6]);
    expect(count('payme_transactions')).toEqual({ n: 0 });
  });

  it('an unexpected error: the filter answers 500, nothing is written, the redelivery runs afresh', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    payme.shop.db.exec('DROP TABLE payments_ledger');
    const failed = await rpc('PerformTransaction', { id: 'tx-7' }, 2).expect(500);
    expect(failed.body).toMatchObject({ error: { code: -32400 }, id: 2 });
    expect(payme.shop.db.prepare('SELECT status FROM orders WHERE id = 7').get()).toEqual({
      status: 'new',
    });
    payme.shop.db.exec(
      'CREATE TABLE payments_ledger (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, amount INTEGER NOT NULL, payme_id TEXT NOT NULL)',
    );
    const again = await rpc('PerformTransaction', { id: 'tx-7' }, 3).expect(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.result).toMatchObject({ state: 2 });
    expect(payme.runs.get('PerformTransaction:tx-7')).toBe(2);
    expect(count('payments_ledger')).toEqual({ n: 1 });
  });

  it('a method no route names is answered by the catch-all with JSON-RPC -32601 (HTTP 200), stored and replayed; nothing runs', async () => {
    const first = await rpc('CancelTransaction', { id: 'tx-7', reason: 1 }, 6).expect(200);
    expect(first.body).toMatchObject({ error: { code: -32601 }, id: 6 });
    const retry = await rpc('CancelTransaction', { id: 'tx-7', reason: 1 }, 7).expect(200);
    expect([retry.headers['idempotent-replayed'], retry.body]).toEqual([
      'true',
      { ...first.body, id: 7 },
    ]);
    expect(payme.runs.size).toBe(0);
    expect(count('payme_transactions')).toEqual({ n: 0 });
  });

  it('a writing method without params.id passes through unkeyed and gets JSON-RPC -32600, writing nothing', async () => {
    const { id: _id, ...unkeyed } = create;
    const res = await rpc('CreateTransaction', unkeyed, 8).expect(200);
    expect(res.body).toMatchObject({ error: { code: -32600 }, id: 8 });
    expect(count('payme_transactions')).toEqual({ n: 0 });
    expect(count('webhook_receipts')).toEqual({ n: 0 });
  });

  it('wrong credentials are refused before any claim, with the Payme error and HTTP 200', async () => {
    const forged = cashDesk.rpc('CreateTransaction', create, { id: 9 }).forged();
    const res = await send(forged).expect(200);
    expect(res.body).toMatchObject({ error: { code: -32504 }, id: 9 });
    expect(count('webhook_receipts')).toEqual({ n: 0 });
    expect(payme.runs.size).toBe(0);
  });
});
