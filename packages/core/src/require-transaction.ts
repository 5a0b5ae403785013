/** @module `requireTransaction(req.idempotency, store)`: the handler's transaction, typed from the store. */
import { ConfigError } from './errors';
import type { Store } from './types';

/**
 * `T`, in a form the compiler does not infer from: the result's type must come from `store`, not
 * from what the caller assigns it to (`NoInfer`, which needs TypeScript 5.4, does the same).
 */
type Deferred<T> = [T][T extends unknown ? 0 : never];

/**
 * The open transaction of a transactional run, typed from `store`: what an HTTP handler reads
 * from `req.idempotency` (Express, Fastify), `ctx.state.idempotency` (Koa) or `c.get('idempotency')`
 * (Hono) without a cast, since a framework's request object cannot carry the store's type. Over
 * `new SqlStore(fromPrisma(prisma))` it is Prisma's interactive-transaction client, over
 * `new SqlStore(fromDrizzle(db))` Drizzle's `tx`, over a `pg` Pool a `PoolClient`.
 *
 * `store` is only read for its type: pass the store the adapter was given. Over a store without
 * transactions (`InMemoryStore`) the result is a type nothing accepts, so that mistake fails to
 * compile instead of throwing at run time.
 *
 * @example
 * ```ts
 * app.post('/webhooks/stripe', express.raw({ type: '*\/*' }), idempotent({ store, preset, transactional: true }),
 *   async (req, res) => {
 *     const tx = requireTransaction(req.idempotency, store);
 *     await tx.order.update({ where: { id }, data: { paid: true } });
 *     res.json({ received: true });
 *   });
 * ```
 * @throws {ConfigError} naming `transactional`, when `idempotency` is `undefined` (the route is
 * not behind the adapter, or the request passed it without a key) or its run has no transaction
 * (the adapter's `transactional` option is off): a handler that needs the transaction must not
 * write without it.
 */
export function requireTransaction<Tx>(
  idempotency: { readonly transaction?: unknown } | undefined,
  store: Store<Tx>,
): Deferred<
  [Tx] extends [never]
    ? {
        readonly 'this store has no transactions: use a transactional store such as SqlStore': never;
      }
    : Tx
> {
  void store;
  if (idempotency === undefined)
    throw new ConfigError(
      'transactional',
      'this request has no idempotency context: mount the adapter on this route, and give the request a key (a keyless request passes without a transaction)',
    );
  if (idempotency.transaction === undefined)
    throw new ConfigError(
      'transactional',
      'this run has no transaction: set transactional: true on the adapter (and use a store that supports it)',
    );
  return idempotency.transaction as never;
}
