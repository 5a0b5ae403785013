/**
 * `D1Store`: the receipts table in Cloudflare D1, for Workers (Hono or a plain fetch handler). The
 * table's migration comes from `Schema.d1Migration()` of the package root.
 * @module @webhook-idempotency/sql/d1
 */
export { D1Store } from './receipts/d1-store';
export type {
  D1DatabaseLike,
  D1PreparedStatementLike,
  D1ResultLike,
  D1StoreOptions,
  D1Writes,
} from './connections/d1-types';
