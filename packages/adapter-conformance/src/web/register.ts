/** @module registerWebSuite: the HTTP suite registered with a runtime's own test runner. */
import type { OpenedStore } from '../stores';
import { planWebSuite } from './cases';
import { createWebHarness } from './harness';
import type { WebRuntime } from './types';

/**
 * Registers every test of {@link planWebSuite} on the runtime's stores with its test runner: each
 * opens a fresh store, serves the app with the runtime's server, sends real HTTP requests with
 * the runtime's `fetch`, and closes the servers and the store afterwards.
 * @example
 * registerWebSuite({ test, serve: bunServe, stores: [bunSqlite, postgres] });
 */
export function registerWebSuite(runtime: WebRuntime): void {
  for (const planned of planWebSuite(runtime.stores.map((kind) => kind.name))) {
    const kind = runtime.stores[planned.store]!;
    runtime.test(planned.name, async () => {
      const cleanup: Array<() => Promise<void>> = [];
      let opened: OpenedStore | undefined;
      try {
        opened = await kind.open();
        await planned.testCase.run(createWebHarness(planned.entry, runtime, opened.store, cleanup));
      } finally {
        for (const close of cleanup.splice(0).reverse()) await close();
        await opened?.close();
      }
    });
  }
}
