/** @module The shape of one conformance case. */
import type { Harness } from './harness';
import type { AdapterCapabilities } from './types';

/** One behaviour checked on every adapter, major and store. */
export interface AdapterCase {
  readonly group: string;
  readonly name: string;
  /** Cases an adapter cannot express are left out by capability, never by adapter name. */
  readonly needs?: keyof AdapterCapabilities;
  /** What it checks does not depend on the store (a preset's signature scheme): run on the first store kind only. */
  readonly anyStore?: boolean;
  /** The preset fixture it sends (the presets group): an entry with `presets: 'sample'` runs it only when that preset is in the sample. */
  readonly preset?: string;
  run(harness: Harness): Promise<void>;
}
