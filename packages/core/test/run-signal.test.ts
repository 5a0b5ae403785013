/**
 * `guard.run(key, handler, { signal })` without a transaction: an abort ends the run at once with
 * the signal's reason and leaves the receipt `processing`; what the handler still does later is
 * recorded, fenced by its claim.
 */
import { IdempotencyGuard, InMemoryStore, RequestKey } from '../src';

const key = new RequestKey('stripe', 'evt_1');

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('guard.run with a signal, without a transaction', () => {
  it('rejects with the reason at once and leaves the receipt processing; a late result is recorded', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    const late = deferred<string>();
    const controller = new AbortController();
    const reason = new Error('stopping');
    const started = deferred<void>();
    const run = guard.run(
      key,
      () => {
        started.resolve();
        return late.promise;
      },
      { signal: controller.signal },
    );
    await started.promise;
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(await guard.find(key)).toMatchObject({ status: 'processing' });
    late.resolve('booked');
    for (let i = 0; i < 50 && (await guard.find(key))?.status === 'processing'; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(await guard.find(key)).toMatchObject({ status: 'completed', response: '"booked"' });
  });

  it('a late failure marks the receipt failed; an abort before the run started ends it at once', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    const late = deferred<string>();
    const controller = new AbortController();
    const started = deferred<void>();
    const run = guard.run(
      key,
      () => {
        started.resolve();
        return late.promise;
      },
      { signal: controller.signal },
    );
    await started.promise;
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    late.reject(new Error('too late'));
    for (let i = 0; i < 50 && (await guard.find(key))?.status === 'processing'; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(await guard.find(key)).toMatchObject({ status: 'failed', error: 'Error: too late' });
    const other = new RequestKey('stripe', 'evt_2');
    const never = jest.fn(() => 'never run');
    await expect(
      guard.run(other, never, { signal: AbortSignal.abort(new Error('gone')) }),
    ).rejects.toThrow('gone');
    expect(never).not.toHaveBeenCalled();
    expect(await guard.find(other)).toMatchObject({ status: 'failed', error: 'Error: gone' });
  });

  it('without an abort, the handler result and failure are what they always were', async () => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    const { signal } = new AbortController();
    expect(await guard.run(key, () => 'ok', { signal })).toMatchObject({ response: 'ok' });
    const failing = new RequestKey('stripe', 'evt_3');
    await expect(
      guard.run(
        failing,
        () => {
          throw new Error('bad');
        },
        { signal },
      ),
    ).rejects.toThrow('bad');
    expect(await guard.find(failing)).toMatchObject({ status: 'failed' });
  });
});
