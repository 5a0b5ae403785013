/** @module The shape of one conformance case. */
import type { Harness } from './harness';
import type { AdapterCapabilities } from './types';

/** One behaviour checked on every adapter, major and store. */
export interface AdapterCase {
  readonly group: string;
  readonly name: string;
  /** Cases an adapter cannot express are left out by capability, never by adapter name. */
  readonly needs?: keyof AdapterCapabilities;
  run(harness: Harness): Promise<void>;
}
