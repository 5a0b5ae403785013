/**
 * The stop with a deadline the worker and the relay share, on jest's fake clock: what has not
 * started is given back first; the store call and the runs under way are waited for until the
 * deadline; the runs still going are then ended and get the grace to give their work back; it
 * resolves by the deadline plus the grace with what it left, however long a run hangs.
 */
import { stopWithDeadline } from '../../src/inbox/stopper';

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

const never = new Promise<void>(() => {});

/** Tracks whether `promise` has resolved, and with what. */
function watch<T>(promise: Promise<T>) {
  const state: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => {
    state.done = true;
    state.value = value;
  });
  return state;
}

it('gives back what has not started before anything else, then resolves at once when nothing runs', async () => {
  const order: string[] = [];
  const stopped = watch(
    stopWithDeadline({
      timeoutMs: 1000,
      giveBack: () => order.push('give back'),
      runs: () => {
        order.push('runs');
        return new Map();
      },
      abort: () => order.push('abort'),
    }),
  );
  await jest.advanceTimersByTimeAsync(0);
  expect(stopped).toEqual({ done: true, value: [] });
  expect(order).toEqual(['give back', 'runs']);
  expect(jest.getTimerCount()).toBe(0);
});

it('resolves by its deadline plus the grace with a run that hangs, having ended it at the deadline', async () => {
  const aborted: number[] = [];
  const runs = new Map([['hung', never]]);
  const stopped = watch(
    stopWithDeadline({
      timeoutMs: 1000,
      runs: () => runs,
      abort: () => aborted.push(Date.now()),
      graceMs: 2000,
    }),
  );
  await jest.advanceTimersByTimeAsync(999);
  expect(aborted).toEqual([]);
  await jest.advanceTimersByTimeAsync(1);
  expect(aborted).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(1999);
  expect(stopped.done).toBe(false);
  await jest.advanceTimersByTimeAsync(1);
  expect(stopped).toEqual({ done: true, value: ['hung'] });
  expect(jest.getTimerCount()).toBe(0);
});

it('a run that gives its work back once ended leaves nothing, without waiting out the grace', async () => {
  const runs = new Map<string, Promise<void>>();
  let giveBack!: () => void;
  runs.set(
    'slow',
    new Promise<void>((resolve) => (giveBack = resolve)).then(() => void runs.delete('slow')),
  );
  const stopped = watch(
    stopWithDeadline({ timeoutMs: 1000, runs: () => runs, abort: () => giveBack(), graceMs: 2000 }),
  );
  await jest.advanceTimersByTimeAsync(1000);
  expect(stopped).toEqual({ done: true, value: [] });
  expect(jest.getTimerCount()).toBe(0);
});

it('runs that end before the deadline are never ended', async () => {
  let finish!: () => void;
  const runs = new Map([['quick', new Promise<void>((resolve) => (finish = resolve))]]);
  const abort = jest.fn();
  const stopped = watch(stopWithDeadline({ timeoutMs: 1000, runs: () => runs, abort }));
  await jest.advanceTimersByTimeAsync(500);
  finish();
  await jest.advanceTimersByTimeAsync(0);
  expect(stopped).toEqual({ done: true, value: [] });
  expect(abort).not.toHaveBeenCalled();
});

it('a store call that hangs is reported at the deadline; the runs then get no more time than what is left', async () => {
  const late = jest.fn();
  const abort = jest.fn();
  const runs = new Map([['hung', never]]);
  const stopped = watch(
    stopWithDeadline({
      timeoutMs: 1000,
      step: never,
      stepLate: late,
      runs: () => runs,
      abort,
      graceMs: 500,
    }),
  );
  await jest.advanceTimersByTimeAsync(999);
  expect(late).not.toHaveBeenCalled();
  await jest.advanceTimersByTimeAsync(1);
  expect(late).toHaveBeenCalledTimes(1);
  expect(abort).toHaveBeenCalledTimes(1);
  await jest.advanceTimersByTimeAsync(500);
  expect(stopped).toEqual({ done: true, value: ['hung'] });
});
