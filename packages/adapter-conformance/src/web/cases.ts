/**
 * @module The HTTP suite on a Web-standard server: every shared case the adapter can express (by
 * capability), plus the body limit the Web adapters enforce themselves; and the plan of tests a
 * runtime registers, named the same in the runtime and in the jest file that reads its results.
 */
import type { AdapterCase } from '../case';
import { BODY } from '../harness';
import { adapterCases } from '../suite';
import { webApps } from './apps';
import type { WebHarness } from './harness';
import type { WebAppEntry } from './types';

/** A case of the Web suite: a shared one, or one that needs the Web harness. */
export interface WebCase extends Omit<AdapterCase, 'run'> {
  run(harness: WebHarness): Promise<void>;
}

/** `maxRequestBytes`, in the runtime's own request body: a body past it is refused before the guard runs. */
export const limitCases: readonly WebCase[] = [
  {
    group: 'request body limit',
    name: 'a body over maxRequestBytes announced by Content-Length: 413, handler not run, no receipt',
    async run(h) {
      await h.start({ maxRequestBytes: 16 });
      const res = await h.post('l1', BODY);
      expect(res.status).toBe(413);
      expect(h.calls()).toBe(0);
      expect(await h.receipt('l1')).toBeNull();
      expect((await h.post('l2', '{"small":1}')).status).toBe(200);
    },
  },
  {
    group: 'request body limit',
    name: 'a streamed body that grows past maxRequestBytes: 413, handler not run, no receipt',
    async run(h) {
      await h.start({ maxRequestBytes: 16 });
      const res = await h.postChunks('l3', [
        '{"id":"evt_1",',
        ' "padding": "',
        'x'.repeat(64),
        '"}',
      ]);
      expect(res.status).toBe(413);
      expect(h.calls()).toBe(0);
      expect(await h.receipt('l3')).toBeNull();
    },
  },
];

/** Every case of the Web suite, in order. */
export const webCases: readonly WebCase[] = [...adapterCases, ...limitCases];

/** One test a runtime registers. */
export interface PlannedTest {
  /** `fetch on bun:sqlite › replay › …`: the name in the runtime's report. */
  readonly name: string;
  readonly entry: WebAppEntry;
  /** Index into the runtime's stores. */
  readonly store: number;
  readonly testCase: WebCase;
}

/**
 * The tests of the suite on `stores` (their names, in the runtime's order): each Web adapter on
 * each store, every case the adapter can express; a case that does not depend on the store
 * (`anyStore`) on the first store only.
 */
export function planWebSuite(stores: readonly string[]): PlannedTest[] {
  return webApps.flatMap((entry) =>
    stores.flatMap((storeName, store) =>
      webCases
        .filter((c) => !c.needs || entry.capabilities[c.needs])
        .filter((c) => !c.anyStore || store === 0)
        .map((testCase) => ({
          name: `${entry.name} on ${storeName} › ${testCase.group} › ${testCase.name}`,
          entry,
          store,
          testCase,
        })),
    ),
  );
}
