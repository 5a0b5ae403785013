/**
 * @module The one stop with a deadline the inbox's machines share (the worker, the relay):
 * {@link stopWithDeadline}.
 *
 * 1. What was taken but has not started is given back at once ({@link StopPlan.giveBack}).
 * 2. The store call under way (a worker's lease call, a relay's round) is waited for until the
 *    deadline; one still going then is reported ({@link StopPlan.stepLate}) and left to end on its
 *    own (what it takes later is its owner's to give back).
 * 3. The runs under way are waited for until the same deadline. At the deadline, the ones still
 *    going are ended ({@link StopPlan.abort}: a transaction is rolled back, a handler told through
 *    its signal), and they get `graceMs` more to give their work back.
 * 4. It resolves by the deadline plus the grace, whatever still hangs, with what it left: the runs
 *    that had not ended by then (their owner reports them; their leases run out).
 */

/** What a stop waits for, and how it ends what it may no longer wait for. */
export interface StopPlan<T> {
  /** Milliseconds the stop waits for the store call and the runs under way. */
  readonly timeoutMs: number;
  /** Gives back at once what was taken but not started. */
  giveBack?(): void;
  /** The store call under way, if any: waited for until the deadline. */
  readonly step?: Promise<unknown> | undefined;
  /** The store call had not ended by the deadline. */
  stepLate?(): void;
  /** The runs under way, each with what it resolves once over; read once the store call is over. */
  runs?(): ReadonlyMap<T, Promise<unknown>>;
  /** Ends the runs still going at the deadline; each then gives its work back. */
  abort?(): void;
  /** How long the runs ended at the deadline get to give their work back. Defaults to 0. */
  readonly graceMs?: number;
}

/** A timer as a promise: `over` resolves after `ms`; `clear()` drops the timer. */
function deadlineIn(ms: number): { readonly over: Promise<void>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const over = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { over, clear: () => clearTimeout(timer) };
}

/** Resolves `true` when `work` settles (either way) before `over`, `false` when `over` comes first. */
export function settlesBefore(work: Promise<unknown>, over: Promise<void>): Promise<boolean> {
  return Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    over.then(() => false),
  ]);
}

/**
 * Stops as the module's header says; resolves by `timeoutMs + graceMs` with the runs that had not
 * ended by then (none when everything ended in time).
 */
export async function stopWithDeadline<T>(plan: StopPlan<T>): Promise<T[]> {
  plan.giveBack?.();
  const deadline = deadlineIn(plan.timeoutMs);
  try {
    if (plan.step !== undefined && !(await settlesBefore(plan.step, deadline.over)))
      plan.stepLate?.();
    const runs = plan.runs?.();
    if (runs === undefined || runs.size === 0) return [];
    if (await settlesBefore(Promise.allSettled(runs.values()), deadline.over)) return [];
    plan.abort?.();
    const grace = deadlineIn(plan.graceMs ?? 0);
    try {
      if (await settlesBefore(Promise.allSettled(runs.values()), grace.over)) return [];
    } finally {
      grace.clear();
    }
    // The map is live: what is still in it had not ended.
    return [...runs.keys()];
  } finally {
    deadline.clear();
  }
}
