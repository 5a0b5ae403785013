/**
 * The conformance suites: the contracts every `Store` and every `InboxStore` implementation pass.
 * @module @webhook-idempotency/core/testing
 */
export { runStoreConformance, conformanceCases, runCase } from './suite';
export type { ConformanceCase, ConformanceHarness, ConformanceOptions, CaseContext } from './types';
export { inboxConformanceCases, runInboxCase, runInboxStoreConformance } from './inbox/suite';
export type {
  InboxCaseContext,
  InboxConformanceCase,
  InboxConformanceHarness,
  InboxConformanceOptions,
  InboxTestClock,
} from './inbox/types';
