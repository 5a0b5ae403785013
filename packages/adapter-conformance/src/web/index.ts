/** @module `@webhook-idempotency/adapter-conformance/web`: re-exports only. */
export { fetchWebApp, honoWebApp, webApps } from './apps';
export { limitCases, planWebSuite, type PlannedTest, type WebCase, webCases } from './cases';
export { createWebHarness, type WebHarness, type WebResponse } from './harness';
export { registerWebSuite } from './register';
export { pgStoreKind, sqliteStoreKind } from './stores';
export type * from './types';
