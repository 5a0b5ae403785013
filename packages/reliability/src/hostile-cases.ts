/** @module The hostile-input table (docs/guarantees.md): malformed and forged requests, and what each adapter must answer. */
import { headerBodyCases } from './hostile-header-body-cases';
import { headerCases } from './hostile-header-cases';
import { bodyCases } from './hostile-body-cases';
import { presetCases } from './hostile-preset-cases';
import type { HostileCase } from './hostile-requests';

export {
  ANSWER_HEADER,
  BIG_ANSWER_BYTES,
  type Expected,
  type Family,
  GITHUB_SECRET,
  type HostileCase,
  NOW_SECONDS,
  type Outcome,
  type Route,
  SHOPIFY_SECRET,
  STRIPE_SECRET,
} from './hostile-requests';

/** Every row of the table, in order. */
export const hostileCases: readonly HostileCase[] = [
  ...headerCases,
  ...headerBodyCases,
  ...bodyCases,
  ...presetCases,
];
