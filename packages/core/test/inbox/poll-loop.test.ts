/**
 * The state machine the worker and the relay share, on jest's fake clock: idle → running →
 * stopping → stopped; one loop runs rounds while running, with the nap each round asks for; a stop
 * cuts a nap short and waits for the round under way; a start while a stopped loop's round is still
 * under way lets that loop carry on (never two rounds at once); a nap until woken ends on a wake,
 * also one that came during the round; a stop that ends the runs aborts their signal, and the next
 * start or runOnce gets a new one.
 */
import { LoopState, PollLoop, UNTIL_WOKEN } from '../../src/inbox/poll-loop';

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

/** A loop whose rounds the test ends one at a time, each with the nap it passes. */
function scripted() {
  const pending: Array<(napMs: number) => void> = [];
  let rounds = 0;
  let running = 0;
  let most = 0;
  const loop = new PollLoop(
    () =>
      new Promise<number>((resolve) => {
        rounds++;
        most = Math.max(most, ++running);
        pending.push((napMs) => {
          running--;
          resolve(napMs);
        });
      }),
  );
  return {
    loop,
    rounds: () => rounds,
    most: () => most,
    /** Ends the round under way, asking for `napMs` before the next. */
    end: async (napMs: number) => {
      pending.shift()!(napMs);
      await jest.advanceTimersByTimeAsync(0);
    },
  };
}

it('goes idle → running → stopping → stopped; the first round comes after a nap of 0, the next after the nap asked for', async () => {
  const s = scripted();
  expect(s.loop.state).toBe(LoopState.IDLE);
  s.loop.start();
  expect(s.loop.state).toBe(LoopState.RUNNING);
  expect(s.rounds()).toBe(0);
  await jest.advanceTimersByTimeAsync(0);
  expect(s.rounds()).toBe(1);
  await s.end(1000);
  await jest.advanceTimersByTimeAsync(999);
  expect(s.rounds()).toBe(1);
  await jest.advanceTimersByTimeAsync(1);
  expect(s.rounds()).toBe(2);
  const round = s.loop.halt();
  expect(s.loop.state).toBe(LoopState.STOPPING);
  expect(s.loop.halting).toBe(true);
  expect(round).toBeInstanceOf(Promise);
  await s.end(0);
  await expect(round).resolves.toBe(0);
  s.loop.halted();
  expect(s.loop.state).toBe(LoopState.STOPPED);
  await jest.advanceTimersByTimeAsync(10_000);
  expect(s.rounds()).toBe(2);
  expect(jest.getTimerCount()).toBe(0);
});

it('a stop cuts a nap short: no round under way to wait for, and no round after it', async () => {
  const s = scripted();
  s.loop.start();
  await jest.advanceTimersByTimeAsync(0);
  await s.end(60_000);
  expect(jest.getTimerCount()).toBe(1);
  expect(s.loop.halt()).toBeUndefined();
  expect(jest.getTimerCount()).toBe(0);
  await jest.advanceTimersByTimeAsync(60_000);
  expect(s.rounds()).toBe(1);
});

it('a start while a stopped loop still waits on its round lets that loop carry on: never two rounds at once', async () => {
  const s = scripted();
  s.loop.start();
  await jest.advanceTimersByTimeAsync(0);
  void s.loop.halt();
  s.loop.halted();
  s.loop.start();
  await jest.advanceTimersByTimeAsync(0);
  expect(s.rounds()).toBe(1);
  await s.end(0);
  await jest.advanceTimersByTimeAsync(0);
  expect(s.rounds()).toBe(2);
  expect(s.most()).toBe(1);
  expect(s.loop.state).toBe(LoopState.RUNNING);
});

it('a nap until woken ends on a wake, or at once after a wake during the round; a wake does not cut a timed nap', async () => {
  const s = scripted();
  s.loop.start();
  await jest.advanceTimersByTimeAsync(0);
  await s.end(UNTIL_WOKEN);
  await jest.advanceTimersByTimeAsync(3_600_000);
  expect(s.rounds()).toBe(1);
  s.loop.wake();
  await jest.advanceTimersByTimeAsync(0);
  expect(s.rounds()).toBe(2);
  // A wake while the round runs: the nap until woken that it asks for ends at once.
  s.loop.wake();
  await s.end(UNTIL_WOKEN);
  expect(s.rounds()).toBe(3);
  await s.end(1000);
  s.loop.wake();
  await jest.advanceTimersByTimeAsync(999);
  expect(s.rounds()).toBe(3);
  await jest.advanceTimersByTimeAsync(1);
  expect(s.rounds()).toBe(4);
});

it('runOnce after a stop makes the machine idle again: it takes work, and nothing is halting', () => {
  const s = scripted();
  void s.loop.halt();
  s.loop.halted();
  expect(s.loop.halting).toBe(true);
  s.loop.rest();
  expect(s.loop.state).toBe(LoopState.IDLE);
  expect(s.loop.halting).toBe(false);
});

it('a stop that ends the runs aborts their signal; the next start or runOnce gets a new one, a signal not ended stays', () => {
  const s = scripted();
  const first = s.loop.runSignal;
  s.loop.rest();
  expect(s.loop.runSignal).toBe(first);
  void s.loop.halt();
  s.loop.endRuns(new Error('stopping'));
  s.loop.halted();
  expect(first.aborted).toBe(true);
  expect(s.loop.runSignal).toBe(first);
  s.loop.rest();
  const second = s.loop.runSignal;
  expect(second.aborted).toBe(false);
  void s.loop.halt();
  s.loop.endRuns(new Error('stopping'));
  s.loop.halted();
  s.loop.start();
  expect(s.loop.runSignal.aborted).toBe(false);
  expect(s.loop.runSignal).not.toBe(second);
  void s.loop.halt();
});
