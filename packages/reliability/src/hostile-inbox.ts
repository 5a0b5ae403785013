/** @module The hostile-input table of the inbox endpoint: forged, malformed and oversized deliveries, and what every adapter's `inbox(options)` must answer and store. */
import type { InboxCase } from './hostile-inbox-cases';
import { ownInboxCases } from './hostile-inbox-own';
import { presetInboxCases } from './hostile-inbox-presets';

/** Every row of the inbox table, in order: the presets', then the own `verify`, `unverified` and `down` routes'. */
export const hostileInboxCases: readonly InboxCase[] = [...presetInboxCases, ...ownInboxCases];
