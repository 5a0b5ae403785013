import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';
import request from 'supertest';
import { createPaymentApp, type PaymentApp } from '../src/app';
import { runDemo } from '../src/demo';
import { createOrder } from '../src/shop';

const KEY = 'test-cash-desk-key-00000000000000000';
const cashDesk = signers.payme({ password: KEY, url: 'https://shop.example.com/payme' });

describe('payment-webhook example', () => {
  let dir: string;
  let shop: PaymentApp;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payment-webhook-'));
    shop = await createPaymentApp({ file: join(dir, 'shop.sqlite'), paymeKey: KEY });
    createOrder(shop.db, 7, 10_000);
  });

  afterEach(() => {
    shop.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (delivery: signers.Delivery) => signers.send.supertest(request(shop.app), delivery);
  const rpc = (method: string, params: object, id: number) =>
    send(cashDesk.rpc(method, params, { id }));
  const create = { id: 'tx-7', time: 1, amount: 10_000, account: { order_id: 7 } };

  it('a retried PerformTransaction is replayed with the current JSON-RPC id and the same perform_time', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    const first = await rpc('PerformTransaction', { id: 'tx-7' }, 2).expect(200);
    const retry = await rpc('PerformTransaction', { id: 'tx-7' }, 3).expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual({ ...first.body, id: 3 });
    expect(retry.body.result.perform_time).toBe(first.body.result.perform_time);
    expect(shop.handlerRuns.get('PerformTransaction:tx-7')).toBe(1);
    expect(shop.db.prepare('SELECT count(*) AS n FROM payments_ledger').get()).toEqual({ n: 1 });
  });

  it('CheckTransaction passes through unguarded and reports the current state every time', async () => {
    await rpc('CreateTransaction', create, 1).expect(200);
    const before = await rpc('CheckTransaction', { id: 'tx-7' }, 2).expect(200);
    await rpc('PerformTransaction', { id: 'tx-7' }, 3).expect(200);
    const after = await rpc('CheckTransaction', { id: 'tx-7' }, 4).expect(200);
    expect(before.body.result.state).toBe(1);
    expect(after.body.result.state).toBe(2);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    const receipts = shop.db
      .prepare(
        "SELECT external_id FROM webhook_receipts WHERE external_id LIKE 'CheckTransaction%'",
      )
      .all();
    expect(receipts).toEqual([]);
  });

  it('a business error is a definite answer: HTTP 200 with the Payme code', async () => {
    const res = await rpc('CreateTransaction', { ...create, id: 'tx-8', amount: 1 }, 5).expect(200);
    expect(res.body).toMatchObject({ error: { code: -31001 }, id: 5 });
    expect(shop.db.prepare('SELECT status FROM orders WHERE id = 7').get()).toEqual({
      status: 'new',
    });
  });

  it('a method no route names is answered by the catch-all with JSON-RPC -32601 (HTTP 200), stored and replayed; nothing runs', async () => {
    const fiscal = { id: 'tx-7', type: 'PERFORM', fiscal_data: {} };
    const first = await rpc('SetFiscalData', fiscal, 6).expect(200);
    expect(first.body).toMatchObject({ error: { code: -32601 }, id: 6 });
    const retry = await rpc('SetFiscalData', fiscal, 7).expect(200);
    expect([retry.headers['idempotent-replayed'], retry.body]).toEqual([
      'true',
      { ...first.body, id: 7 },
    ]);
    expect(shop.handlerRuns.size).toBe(0);
    expect(shop.db.prepare('SELECT count(*) AS n FROM payme_transactions').get()).toEqual({ n: 0 });
  });

  it('a writing method without params.id passes through unkeyed and is refused with JSON-RPC -32600, writing nothing', async () => {
    const { id: _id, ...unkeyed } = create;
    const res = await rpc('CreateTransaction', unkeyed, 8).expect(200);
    expect(res.body).toMatchObject({ error: { code: -32600 }, id: 8 });
    expect(shop.db.prepare('SELECT count(*) AS n FROM payme_transactions').get()).toEqual({ n: 0 });
    expect(shop.db.prepare('SELECT count(*) AS n FROM webhook_receipts').get()).toEqual({ n: 0 });
  });

  it('wrong credentials are refused before any claim', async () => {
    const forged = cashDesk.rpc('CreateTransaction', create, { id: 9 }).forged();
    const res = await send(forged).expect(200);
    expect(res.body).toMatchObject({ error: { code: -32504 }, id: 9 });
    expect(shop.db.prepare('SELECT count(*) AS n FROM webhook_receipts').get()).toEqual({ n: 0 });
    expect(shop.handlerRuns.size).toBe(0);
  });
});

describe('the demo', () => {
  it('plays every scenario and every outcome matches the promise', async () => {
    const { rows, receipts, ok } = await runDemo();
    expect(rows.filter((r) => !r.ok)).toEqual([]);
    expect(ok).toBe(true);
    expect(rows).toHaveLength(7);
    expect(receipts).toContainEqual(
      expect.objectContaining({
        external_id: 'PerformTransaction:tx-flaky',
        status: 'completed',
        attempts: 2,
      }),
    );
  });

  it('leaves the dashboard running on the demo database when asked, at the URL it prints', async () => {
    const { ok, dashboard } = await runDemo({ dashboard: true });
    expect(ok).toBe(true);
    try {
      expect(dashboard?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin\/webhooks\/$/);
      const page = await fetch(dashboard!.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('payme');
      const receipt = await fetch(
        `${dashboard!.url}receipt?provider=payme&id=${encodeURIComponent('PerformTransaction:tx-flaky')}`,
      );
      expect(await receipt.text()).toContain('completed');
    } finally {
      await dashboard?.close();
    }
  });
});
