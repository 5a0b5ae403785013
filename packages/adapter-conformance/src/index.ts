/** @module `@webhook-idempotency/adapter-conformance`: re-exports only. */
export { runAdapterConformance, adapterCases } from './suite';
export {
  BODY,
  createHarness,
  PROVIDER,
  gate,
  jsonAnswer,
  type CaseHandler,
  type Gate,
  type Harness,
} from './harness';
export { type InboxEntry, runInboxConformance } from './inbox';
export { type FloodRequest, type FloodResult, flood } from './flood';
export {
  type BatchFixture,
  batchFixtures,
  type PresetFixture,
  type PresetRequest,
  presetFixtures,
  requestOf,
} from './presets';
export { running } from './server';
export { type OpenedStore, storeKinds, unreachableStore, type StoreKind } from './stores';
export type { AdapterCase } from './case';
export type * from './types';
