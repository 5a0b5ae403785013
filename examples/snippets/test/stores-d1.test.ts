/**
 * docs/stores.md, D1: the batched booking run twice on D1 in workerd (miniflare). Collected on
 * Node >= 22, which miniflare needs (jest.config.ts WORKERD_SUITES).
 */
import { Schema } from '@webhook-idempotency/sql';
import { startD1, type TestD1 } from '@webhook-idempotency/sql/test/helpers/d1';
import { bookPayment } from '../src/stores-d1';

let d1: TestD1 | undefined;
beforeAll(async () => {
  d1 = await startD1();
  for (const statement of Schema.statements('sqlite')) await d1.db.prepare(statement).run();
  await d1.db.prepare('CREATE TABLE payments (id TEXT PRIMARY KEY, amount INTEGER NOT NULL)').run();
});
afterAll(() => d1?.close());

it('one payment row for two deliveries; the second is answered from the receipt', async () => {
  if (!d1) throw new Error('D1 not started');
  const event = { id: 'evt_d1', data: { object: { id: 'pi_1', amount: 2000 } } };
  const first = await bookPayment({ DB: d1.db }, event);
  const second = await bookPayment({ DB: d1.db }, event);
  expect(await first.json()).toEqual({ booked: 'pi_1' });
  expect(await second.json()).toEqual({ booked: 'pi_1' });
  const { results } = await d1.db.prepare('SELECT id, amount FROM payments').all();
  expect(results).toEqual([{ id: 'pi_1', amount: 2000 }]);
  const receipt = await d1.db
    .prepare('SELECT status, attempts FROM webhook_receipts WHERE external_id = ?')
    .bind('evt_d1')
    .all();
  expect(receipt.results).toEqual([{ status: 'completed', attempts: 1 }]);
});
