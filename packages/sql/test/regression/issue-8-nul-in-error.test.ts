/**
 * Regression (issue 8, failure mode 11): a handler's error text containing NUL (U+0000) made the
 * `fail` write throw on PostgreSQL (TEXT cannot hold it); the guard swallows that best-effort
 * write, so the receipt stayed `processing` and the provider's retries got 409 until the claim
 * went stale. The store now writes U+FFFD in place of NUL, the same text on every dialect.
 * Checked through IdempotencyGuard on every kind of connection the store accepts.
 */
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { MAX_ERROR_LENGTH } from '@webhook-idempotency/core/adapter';
import { Schema, SqlStore } from '../../src';
import { driverKinds, type OpenedKind } from '../helpers/kinds';

const table = 'receipts_nul';
const kinds = driverKinds('nul');

describe.each(kinds)('a handler error with NUL in its text (%s)', (_name, open) => {
  let opened: OpenedKind;
  let run = 0;
  beforeAll(async () => {
    opened = await open();
    await Schema.createTable(opened.db, { table });
  });
  afterAll(() => opened.close());

  it.each([false, true])(
    'marks the receipt failed and the next delivery runs again (transactional: %s)',
    async (transactional) => {
      const store = new SqlStore(opened.db, { table });
      const guard = new IdempotencyGuard(store, { transactional });
      const key = new RequestKey('telegram', `upd_${++run}`);
      const events: string[] = [];
      const observed = new IdempotencyGuard(store, {
        transactional,
        onEvent: (event) => void events.push(event.type),
      });
      const boom = new Error('bad byte \u0000 in field "name\u0000"');

      await expect(observed.run(key, async () => Promise.reject(boom))).rejects.toBe(boom);
      expect(events).toContain('failed');
      expect(events).not.toContain('store-error');
      const failed = await store.find(key, { now: 0 });
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 1,
        error: 'Error: bad byte \uFFFD in field "name\uFFFD"',
      });

      const handler = jest.fn(async () => ({ ok: true }));
      expect(await guard.run(key, handler)).toEqual({
        response: { ok: true },
        isReplay: false,
        attempts: 2,
      });
      expect(handler).toHaveBeenCalledTimes(1);
      expect(await store.find(key, { now: 0 })).toMatchObject({
        status: 'completed',
        attempts: 2,
        error: null,
      });
    },
  );

  it('a lone surrogate (here: the guard cut an emoji in half when truncating) is stored as U+FFFD too', async () => {
    const store = new SqlStore(opened.db, { table });
    const key = new RequestKey('telegram', `upd_${++run}`);
    // "Error: " + message is cut to MAX_ERROR_LENGTH - 1 characters + "…": the cut falls between
    // the emoji's two UTF-16 halves.
    const message = `${'x'.repeat(MAX_ERROR_LENGTH - 2 - 'Error: '.length)}\u{1F600} and more`;
    const boom = new Error(message);
    await expect(
      new IdempotencyGuard(store).run(key, async () => Promise.reject(boom)),
    ).rejects.toBe(boom);
    const failed = await store.find(key, { now: 0 });
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed!.error).toBe(
      `Error: ${'x'.repeat(MAX_ERROR_LENGTH - 2 - 'Error: '.length)}\uFFFD…`,
    );
  });
});
