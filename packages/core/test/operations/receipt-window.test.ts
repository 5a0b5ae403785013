/** finishedWindow: the window of a receipts status report, as every receipts admin gives it. */
import { finishedWindow } from '@webhook-idempotency/core/operations';

describe('finishedWindow', () => {
  it('gives the failure share and the nearest-rank percentiles of handler times in any order', () => {
    const handlerMs = [400, 100, 1000, 300, 200, 600, 500, 800, 700, 900];
    expect(finishedWindow({ sinceMs: 3_600_000, completed: 10, failed: 2, handlerMs })).toEqual({
      sinceMs: 3_600_000,
      completed: 10,
      failed: 2,
      failureShare: 2 / 12,
      handlerTime: { sampled: 10, p50Ms: 500, p95Ms: 1000, p99Ms: 1000, maxMs: 1000 },
    });
    expect(handlerMs[0]).toBe(400); // the caller's times are left as given
  });

  it('takes the nearest rank, never an interpolation: 20 times, p95 is the 19th', () => {
    const handlerMs = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    const { handlerTime } = finishedWindow({ sinceMs: 1, completed: 20, failed: 0, handlerMs });
    expect(handlerTime).toEqual({ sampled: 20, p50Ms: 100, p95Ms: 190, p99Ms: 200, maxMs: 200 });
  });

  it('says null where nothing finished or no time was sampled', () => {
    expect(finishedWindow({ sinceMs: 60_000, completed: 0, failed: 0, handlerMs: [] })).toEqual({
      sinceMs: 60_000,
      completed: 0,
      failed: 0,
      failureShare: null,
      handlerTime: null,
    });
    expect(
      finishedWindow({ sinceMs: 60_000, completed: 0, failed: 3, handlerMs: [] }),
    ).toMatchObject({ failureShare: 1, handlerTime: null });
  });
});
