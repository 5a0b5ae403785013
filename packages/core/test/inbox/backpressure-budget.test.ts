/**
 * The backlog budget on its own (no store, no clock): when a provider starts and stops being
 * refused, with hysteresis so a backlog at the budget does not flap, and the `Retry-After` it
 * derives from the drain rate between reads.
 */
import { BacklogBudget, type BudgetLimits } from '../../src/inbox/backpressure-budget';
import type { ProviderBacklog } from '../../src/inbox/figures';

const limits: BudgetLimits = {
  maxPending: 10,
  maxPendingAgeMs: undefined,
  resumeAt: 0.8,
  retryAfterSeconds: { min: 1, max: 60 },
};
const figures = (unfinished: number, oldestAgeMs: number | null = 0): ProviderBacklog => ({
  provider: 'stripe',
  unfinished,
  stuck: 0,
  oldestAgeMs,
  finished: 0,
  died: 0,
  late: 0,
});
const read = (unfinished: number, complete = true, oldestAgeMs: number | null = 0) => ({
  providers: unfinished === 0 ? [] : [figures(unfinished, oldestAgeMs)],
  complete,
});

describe('BacklogBudget', () => {
  it('refuses at the depth budget and stores again only at resumeAt of it, not just under it', () => {
    const budget = new BacklogBudget(limits);
    expect(budget.apply(read(9), 0)).toEqual([]);
    expect(budget.refused('stripe')).toBeUndefined();
    expect(budget.apply(read(10), 1000)).toEqual([
      {
        state: 'started',
        provider: 'stripe',
        unfinished: 10,
        oldestAgeMs: 0,
        retryAfterSeconds: 1,
      },
    ]);
    expect(budget.apply(read(9), 2000)).toEqual([]);
    expect(budget.refused('stripe')).toBeDefined();
    expect(budget.apply(read(8), 3000)).toEqual([
      {
        state: 'ended',
        provider: 'stripe',
        unfinished: 8,
        oldestAgeMs: 0,
        retryAfterSeconds: null,
      },
    ]);
    expect([...budget.all()]).toEqual([]);
  });

  it('a read cut at its limit starts a refusal but never ends one (its counts are lower bounds)', () => {
    const budget = new BacklogBudget(limits);
    budget.apply(read(12, false), 0);
    expect(budget.apply(read(0, false), 1000)).toEqual([]);
    expect(budget.refused('stripe')).toBeDefined();
    expect(budget.apply(read(0, true), 2000)).toMatchObject([{ state: 'ended' }]);
  });

  it('refuses by the age of the oldest unfinished delivery, and resumes at resumeAt of that age', () => {
    const budget = new BacklogBudget({ ...limits, maxPending: undefined, maxPendingAgeMs: 10_000 });
    expect(budget.apply(read(500, true, 9_999), 0)).toEqual([]);
    expect(budget.apply(read(1, true, 10_000), 1)).toMatchObject([{ state: 'started' }]);
    expect(budget.apply(read(1, true, 8_001), 2)).toEqual([]);
    expect(budget.apply(read(1, true, 8_000), 3)).toMatchObject([{ state: 'ended' }]);
  });

  it('Retry-After: the time to drain to the resume depth at the measured rate, the longest while nothing drains, within bounds', () => {
    const budget = new BacklogBudget({ ...limits, maxPending: 100 });
    budget.apply(read(200), 0);
    expect(budget.refused('stripe')?.retryAfterSeconds).toBe(1); // no rate yet
    budget.apply(read(180), 2000); // 10 a second; 100 above the resume depth of 80
    expect(budget.refused('stripe')?.retryAfterSeconds).toBe(10);
    budget.apply(read(185), 3000); // growing
    expect(budget.refused('stripe')?.retryAfterSeconds).toBe(60);
    budget.apply(read(85), 4000); // 100 a second, 5 above
    expect(budget.refused('stripe')?.retryAfterSeconds).toBe(1);
  });

  it('keeps providers apart: one over budget, another under', () => {
    const budget = new BacklogBudget(limits);
    const changes = budget.apply(
      { providers: [figures(3), { ...figures(10), provider: 'github' }], complete: true },
      0,
    );
    expect(changes.map((c) => c.provider)).toEqual(['github']);
    expect(budget.refused('stripe')).toBeUndefined();
  });
});
