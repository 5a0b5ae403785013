/** docs/reference/errors.md: the branching example, for an in-progress claim, a reused id and a failing handler. */
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import { deliver } from '../src/errors';

describe('branching on the guard errors', () => {
  const guard = new IdempotencyGuard(new InMemoryStore());
  const replies: Array<[number, unknown]> = [];
  const reply = (status: number, body: unknown) => replies.push([status, body]);

  beforeEach(() => {
    replies.length = 0;
  });

  it('answers 409 with retryAfter while another worker holds the claim', async () => {
    const key = new RequestKey('stripe', 'evt_busy');
    let release!: () => void;
    const slow = deliver(
      guard,
      key,
      () => new Promise<void>((resolve) => (release = resolve)),
      reply,
    );
    await new Promise((resolve) => setImmediate(resolve));
    await deliver(guard, key, () => undefined, reply);
    expect(replies).toEqual([[409, { retryAfter: 300 }]]);
    release();
    await slow;
    expect(replies[1]).toEqual([200, { ok: true }]);
  });

  it('answers the status and code of any other IdempotencyError (here: the store is down)', async () => {
    class DownStore extends InMemoryStore {
      override async claim(): Promise<never> {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      }
    }
    await deliver(
      new IdempotencyGuard(new DownStore()),
      new RequestKey('stripe', 'evt_down'),
      () => 'never',
      reply,
    );
    expect(replies).toEqual([[503, { code: 'ERR_IDEMPOTENCY_STORE' }]]);
  });

  it('rethrows the handler own error after marking the receipt failed', async () => {
    const key = new RequestKey('stripe', 'evt_boom');
    await expect(
      deliver(guard, key, () => Promise.reject(new Error('boom')), reply),
    ).rejects.toThrow('boom');
    expect(await guard.find(key)).toMatchObject({ status: 'failed' });
  });
});
