/** @module The suite runner: registers every case with jest (or any runner with describe/it globals). */
import { randomUUID } from 'node:crypto';
import { claimCases } from './claim';
import { completeCases } from './complete';
import { concurrencyCases } from './concurrency';
import { describeCases } from './describe-cases';
import { failCases } from './fail';
import { groupCases } from './group';
import { groupRunCases, groupTransactionCases } from './group-run';
import { ignoredCases, ignoredCountCases } from './ignored';
import { purgeCases } from './purge';
import { staleCases } from './stale';
import { transactionCases } from './transaction';
import type { CaseContext, ConformanceCase, ConformanceHarness, ConformanceOptions } from './types';

/**
 * Every case of the contract, grouped as claim, complete, fail, stale, purge, group (the group
 * operations and a group of first runs as the guard runs it), concurrency, transaction, ignored
 * (the ignored-event counts).
 */
export const conformanceCases: readonly ConformanceCase[] = [
  ...claimCases,
  ...completeCases,
  ...failCases,
  ...staleCases,
  ...purgeCases,
  ...groupCases.filter((c) => c.group === 'group'),
  ...groupRunCases,
  ...concurrencyCases,
  ...groupCases.filter((c) => c.group === 'concurrency'),
  ...transactionCases,
  ...groupTransactionCases,
  ...ignoredCases,
];

/** The cases of the group operations, left out (by capability flag) for a store without them. */
const GROUP_CASES: ReadonlySet<ConformanceCase> = new Set([
  ...groupCases,
  ...groupRunCases,
  ...groupTransactionCases,
]);

/** The cases of the ignored-event counts, left out (by capability flag) for a store without them. */
const IGNORED_COUNT_CASES: ReadonlySet<ConformanceCase> = new Set(ignoredCountCases);

const START = Date.UTC(2026, 0, 1);

/**
 * Runs one case against a harness, outside any test runner's registration: lets a test show that
 * a broken store fails a given case.
 */
export async function runCase<Tx>(
  testCase: ConformanceCase,
  harness: ConformanceHarness<Tx>,
  concurrency = 100,
): Promise<void> {
  let clock = START;
  const run = randomUUID().slice(0, 8);
  let counter = 0;
  const context: CaseContext<Tx> = {
    store: harness.store,
    now: () => clock,
    async advance(ms) {
      clock += ms;
      await harness.advance?.(ms);
    },
    key: (label = 'k', provider = 'conformance') => ({
      provider,
      externalId: `${label}-${run}-${counter++}`,
    }),
    concurrency,
  };
  await testCase.run(context);
}

/**
 * Registers the whole store contract as tests: call it at the top level of a test file.
 * Cases that need a capability the store lacks (transactions, group operations, ignored-event
 * counts) are left out, by capability flag; every store must declare `ignoredCounts`.
 *
 * @example
 * import { runStoreConformance } from '@webhook-idempotency/core/testing';
 * runStoreConformance({ name: 'InMemoryStore', makeStore: () => ({ store: new InMemoryStore() }) });
 */
export function runStoreConformance<Tx = never>(options: ConformanceOptions<Tx>): void {
  const { name, makeStore, concurrency = 100 } = options;
  describeCases(`Store conformance: ${name}`, conformanceCases, makeStore, (testCase, harness) =>
    runApplicable(name, testCase, harness, concurrency),
  );
}

/**
 * Runs a case on its harness where the store has what the case needs; where the store declares it
 * lacks it (no group operations, no ignored counts, no transactions), proves the flag honest instead.
 */
async function runApplicable<Tx>(
  name: string,
  testCase: ConformanceCase,
  harness: ConformanceHarness<Tx>,
  concurrency: number,
): Promise<void> {
  const { capabilities } = harness.store;
  if (capabilities.clock === 'store' && !harness.advance) {
    throw new TypeError(
      `${name}: a store with a 'store' clock needs harness.advance(ms) to move its time`,
    );
  }
  if (GROUP_CASES.has(testCase) && capabilities.groups === false) {
    // Not applicable: the store declares no group operations. Prove the flag is honest instead.
    expect(harness.store.known).toBeUndefined();
    expect(harness.store.recordFirst).toBeUndefined();
    return;
  }
  if (IGNORED_COUNT_CASES.has(testCase) && capabilities.ignoredCounts !== true) {
    // Not applicable: the store keeps no ignored counts. Prove the flag is honest instead.
    expect(harness.store.addIgnored).toBeUndefined();
    expect(harness.store.ignoredCounts).toBeUndefined();
    return;
  }
  if (testCase.group === 'transaction' && !capabilities.transactional) {
    // Not applicable: the store declares no transactions. Prove the flag is honest instead.
    expect(harness.store.withTransaction).toBeUndefined();
    return;
  }
  await runCase(testCase, harness, concurrency);
}
