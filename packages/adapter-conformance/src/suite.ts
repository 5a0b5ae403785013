/** @module runAdapterConformance: registers every case for every adapter entry on every store kind. */
import type { AdapterCase } from './case';
import { answerCases } from './cases/answers';
import { batchCases } from './cases/batches';
import { challengeCases } from './cases/challenges';
import { deliveryCases } from './cases/delivery';
import { failureCases } from './cases/failures';
import { keyCases } from './cases/keys';
import { presetCases } from './cases/presets';
import { replayCases } from './cases/replay';
import { routeCases } from './cases/routes';
import { requestValueCases } from './cases/request-value';
import { createHarness } from './harness';
import { samplePresets } from './presets';
import { storeKinds, type OpenedStore } from './stores';
import type { AdapterEntry } from './types';

/** Every case of the HTTP contract (the adapter behaviours, the per-request value, every provider preset, batched deliveries). */
export const adapterCases: readonly AdapterCase[] = [
  ...replayCases,
  ...keyCases,
  ...failureCases,
  ...answerCases,
  ...deliveryCases,
  ...requestValueCases,
  ...presetCases,
  ...challengeCases,
  ...batchCases,
  ...routeCases,
];

/** Whether `entry` leaves `testCase` out: a preset outside the sample, on an entry that runs only the sample. */
const leftOut = (entry: AdapterEntry, testCase: AdapterCase) =>
  entry.presets === 'sample' &&
  testCase.preset !== undefined &&
  !samplePresets.has(testCase.preset);

/**
 * Registers the whole HTTP suite with jest: one `describe` per adapter entry (framework major)
 * and store kind (memory, SQLite). Call it at the top level of an adapter's test file.
 * @example
 * runAdapterConformance([{ name: 'express 5', capabilities, start }, { name: 'express 4', … }]);
 */
export function runAdapterConformance(entries: AdapterEntry | readonly AdapterEntry[]): void {
  for (const entry of Array.isArray(entries) ? entries : [entries as AdapterEntry]) {
    for (const [index, kind] of storeKinds.entries()) {
      describe(`Adapter conformance: ${entry.name} on ${kind.name}`, () => {
        let opened: OpenedStore | undefined;
        const cleanup: Array<() => Promise<void>> = [];
        afterEach(async () => {
          for (const close of cleanup.splice(0).reverse()) await close();
          await opened?.close();
          opened = undefined;
        });
        for (const group of [...new Set(adapterCases.map((c) => c.group))]) {
          describe(group, () => {
            for (const testCase of adapterCases.filter((c) => c.group === group)) {
              if (testCase.needs && !entry.capabilities[testCase.needs]) continue;
              if (testCase.anyStore && index > 0) continue;
              if (leftOut(entry, testCase)) continue;
              it(testCase.name, async () => {
                opened = await kind.open();
                await testCase.run(createHarness(entry, opened.store, cleanup));
              });
            }
          });
        }
      });
    }
  }
}
