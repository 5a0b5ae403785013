/**
 * raceAbort: a store's transaction work raced against the guard's deadline signal. The work's
 * own outcome when the signal stays quiet; the signal's reason at once when it aborts, the work
 * left to settle unobserved (its later rejection never unhandled).
 */
import { raceAbort } from '../src/adapter';

describe('raceAbort', () => {
  it('is the work itself without a signal, and its outcome while the signal stays quiet', async () => {
    await expect(raceAbort(Promise.resolve(1), undefined)).resolves.toBe(1);
    const quiet = new AbortController().signal;
    await expect(raceAbort(Promise.resolve(2), quiet)).resolves.toBe(2);
    await expect(raceAbort(Promise.reject(new Error('work failed')), quiet)).rejects.toThrow(
      'work failed',
    );
  });

  it("rejects at once with the signal's reason when it aborts, before or during the work", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const deadline = new Error('deadline');
      const before = AbortSignal.abort(deadline);
      await expect(raceAbort(Promise.reject(new Error('late')), before)).rejects.toBe(deadline);
      const controller = new AbortController();
      let fail!: (error: Error) => void;
      const work = new Promise<number>((_, reject) => (fail = reject));
      const raced = raceAbort(work, controller.signal);
      controller.abort(deadline);
      await expect(raced).rejects.toBe(deadline);
      fail(new Error('the work failed after the deadline'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('takes the rejection from reasonOf: a reason that is no Error becomes an AbortError by default', async () => {
    await expect(raceAbort(new Promise(() => {}), AbortSignal.abort('late'))).rejects.toMatchObject(
      {
        name: 'AbortError',
      },
    );
    const own = new Error('the transaction was ended at the handler deadline');
    await expect(
      raceAbort(new Promise(() => {}), AbortSignal.abort('late'), () => own),
    ).rejects.toBe(own);
  });
});
