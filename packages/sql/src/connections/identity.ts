/**
 * @module Which connection a receipts store or an inbox runs its statements on, carried by each
 * (`[CONNECTION]`): an inbox built with its receipts store checks that both are on one connection,
 * and an inbox on SQLite tells when the receipts' transactions would hold its only writer.
 */
import type { InboxCaution } from '@webhook-idempotency/core/inbox';
import { dialects, type SqlDialect } from '../dialects';
import { identityOf } from './orm';

/** The key of the connection a store or an inbox carries; `Symbol.for`, so two copies of the package agree. */
export const CONNECTION: unique symbol = Symbol.for('@webhook-idempotency/sql connection') as never;

/** The connection a store or an inbox was built on. */
export interface ConnectionIdentity {
  /** The object it stands for: the pool, the knex instance, the SQLite handle, an ORM's own object. */
  readonly db: unknown;
  /** The driver's handle under it, where an ORM shows it (a Drizzle database's `$client`), else `db`. */
  readonly handle: unknown;
  readonly dialect: SqlDialect;
}

/** What carries its connection: `SqlStore`, `D1Store`, `SqlInbox`. */
export interface OnConnection {
  /** @internal The connection it runs its statements on. */
  readonly [CONNECTION]: ConnectionIdentity;
}

/** The identity of `db`, a connection a store or an inbox accepts, of `dialect`. */
export function connectionIdentity(db: unknown, dialect: SqlDialect): ConnectionIdentity {
  const identity = identityOf(db);
  const client = (identity as { $client?: unknown } | null)?.$client;
  const handle = typeof client === 'object' && client !== null ? client : identity;
  return { db: identity, handle, dialect };
}

/** The connection `owner` carries, when it is a store or an inbox of this package. */
export function connectionOf(owner: unknown): ConnectionIdentity | undefined {
  if (typeof owner !== 'object' || owner === null) return undefined;
  return (owner as Partial<OnConnection>)[CONNECTION];
}

/**
 * True when `a` and `b` were built on the very same connection object (one pool, one knex, one
 * SQLite handle): a transaction one opens is a place where the other's statements can run. Two
 * pools to the same database are not one (their connections never share a transaction).
 */
export function sameConnection(a: ConnectionIdentity, b: ConnectionIdentity | undefined): boolean {
  return b !== undefined && a.db === b.db;
}

/** What {@link sharedWriter} reports: the endpoint's writes queue behind the handlers' transactions. */
export const SQLITE_SHARED_CONNECTION = 'SQLITE_SHARED_CONNECTION';

/**
 * An inbox on a one-writer database (SQLite) and a receipts store on its very connection (one
 * better-sqlite3 or node:sqlite handle, one knex, one ORM connection, or a Drizzle database and the
 * handle under it): a transactional handler holds the one writer from its first write to its
 * commit, so the endpoint's `INSERT` (the provider's acknowledgement) waits for the slowest
 * handler. It runs, and groups; with slow handlers a provider times out. The fix: the deliveries
 * in a file of their own.
 */
export function sharedWriter(
  inbox: ConnectionIdentity,
  store: ConnectionIdentity | undefined,
): readonly InboxCaution[] {
  if (!dialects[inbox.dialect].singleWriter || store === undefined || inbox.handle !== store.handle)
    return [];
  return [
    {
      code: SQLITE_SHARED_CONNECTION,
      message:
        "SqlInbox and the receipts store share one SQLite connection: a handler’s transaction holds the database’s only write lock until it commits, so the endpoint’s INSERT (the provider’s acknowledgement) waits for the handlers running at that moment, and a provider that gives up after a few seconds (GitHub: 10 s) redelivers. Give the deliveries a database file of their own, on a connection of their own (new SqlInbox(new Database('deliveries.db')), or a knex instance on that file), the receipts staying beside your tables (docs/inbox.md, “SQLite: the inbox in a file of its own”).",
    },
  ];
}
