/**
 * The store conformance suite: the contract every `Store` implementation passes.
 * @module @webhook-idempotency/core/testing
 */
export { runStoreConformance, conformanceCases, runCase } from './suite';
export type { ConformanceCase, ConformanceHarness, ConformanceOptions, CaseContext } from './types';
