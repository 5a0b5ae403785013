/** @module `@webhook-idempotency/core/testing`: the reusable store conformance suite. */
export { runStoreConformance, conformanceCases, runCase } from './suite';
export type { ConformanceCase, ConformanceHarness, ConformanceOptions, CaseContext } from './types';
