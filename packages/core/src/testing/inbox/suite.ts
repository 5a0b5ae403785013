/** @module The inbox-store suite runner: registers every case with jest (or any runner with describe/it globals). */
import { backlogCases } from './backlog';
import { backpressureCases } from './backpressure';
import { describeCases } from '../describe-cases';
import { leaseCases } from './lease';
import { enqueueCases } from './enqueue';
import { leaseCountCases } from './lease-count';
import { listCases } from './list';
import { orderingCases } from './ordering';
import { purgeCases } from './purge';
import { redeliverCases } from './redeliver';
import { relayCases } from './relay';
import { leaseEndCases } from './lease-end';
import type {
  InboxCaseContext,
  InboxConformanceCase,
  InboxConformanceHarness,
  InboxConformanceOptions,
} from './types';

/** Every case of the `InboxStore` contract, grouped as enqueue, lease, lease end, lease count, redeliver, ordering, relay, list, purge, backlog, backpressure. */
export const inboxConformanceCases: readonly InboxConformanceCase[] = [
  ...enqueueCases,
  ...leaseCases,
  ...leaseEndCases,
  ...leaseCountCases,
  ...redeliverCases,
  ...orderingCases,
  ...relayCases,
  ...listCases,
  ...purgeCases,
  ...backlogCases,
  ...backpressureCases,
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one case against a harness, outside any test runner's registration: lets a test show that
 * a broken inbox store fails a given case.
 */
export async function runInboxCase(
  testCase: InboxConformanceCase,
  harness: InboxConformanceHarness,
): Promise<void> {
  const { clock } = harness;
  const context: InboxCaseContext = {
    inbox: harness.inbox,
    now: clock ? () => clock.now() : Date.now,
    wait: clock ? async (ms) => void (await clock.advance(ms)) : sleep,
  };
  await testCase.run(context);
}

/**
 * Registers the whole `InboxStore` contract as tests: call it at the top level of a test file
 * (or inside a `describe`), with a fresh, empty inbox store per case.
 *
 * @example
 * import { InMemoryInbox } from '@webhook-idempotency/core/inbox';
 * import { runInboxStoreConformance } from '@webhook-idempotency/core/testing';
 * runInboxStoreConformance({ name: 'InMemoryInbox', makeInbox: () => ({ inbox: new InMemoryInbox() }) });
 * @see docs/inbox.md
 */
export function runInboxStoreConformance(options: InboxConformanceOptions): void {
  const { name, makeInbox } = options;
  describeCases(`InboxStore conformance: ${name}`, inboxConformanceCases, makeInbox, runInboxCase);
}
