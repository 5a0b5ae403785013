/** @module Public types of the dashboard: its options, the receipts admin it reads, its request record. */
import type { HttpRequest, InMemoryStore } from '@webhook-idempotency/core';
import type { InboxOperatorStore } from '@webhook-idempotency/core/inbox';
import type { ReceiptsAdmin } from '@webhook-idempotency/sql';

/**
 * What the dashboard reads and repairs receipts with: `ReceiptsAdmin` (`@webhook-idempotency/sql`,
 * what the CLI runs) on a SQL store, {@link InMemoryReceipts} on an `InMemoryStore`. Without
 * `ignored` (an object written against an older version), the overview shows no ignored events.
 */
export type DashboardReceipts = Pick<
  ReceiptsAdmin,
  'status' | 'list' | 'find' | 'release' | 'forget' | 'countPurgeable' | 'purge' | 'activity'
> &
  Partial<Pick<ReceiptsAdmin, 'ignored'>>;

/**
 * Options of every mount (`expressDashboard`, `fastifyDashboard`, `koaDashboard`,
 * `honoDashboard`, `fetchDashboard`) and of {@link createDashboard}. Unknown keys are refused.
 * @typeParam Native the framework's own request object, as `authorize` gets it.
 */
export interface DashboardOptions<Native = unknown> {
  /**
   * Says whether this request may see the dashboard: `true` lets it in, `false` answers `401`
   * and performs nothing. Required: the dashboard has no open default. It gets the framework's
   * own request (Express `req`, Fastify `request`, Koa `ctx`, Hono `c`, a fetch `Request`), so it
   * can read the application's session, a header or the client address.
   * @example
   * authorize: (req) => req.session?.user?.role === 'admin'
   */
  authorize(request: Native): boolean | Promise<boolean>;
  /**
   * The receipts: `new ReceiptsAdmin(db)` over the SQL store's connection, or the
   * `InMemoryStore` itself (read through {@link InMemoryReceipts}).
   */
  receipts: DashboardReceipts | InMemoryStore;
  /**
   * The inbox deliveries (`SqlInbox`, `InMemoryInbox`: any store with the operator's role, reads
   * and repairs), for inbox mode. Defaults to none: no inbox pages.
   */
  inbox?: InboxOperatorStore;
  /**
   * The outbox messages (`SqlOutbox`, or a `SqlInbox` on the outbox's table: any inbox-shaped store
   * with the operator's role), for an application that records outbound side effects with
   * `Outbox`. Defaults to none: no outbox pages.
   */
  outbox?: InboxOperatorStore;
  /** The path the dashboard is mounted at, as the browser sees it (`'/admin/webhooks'`). Required. */
  basePath: string;
  /** Show everything, change nothing: no action is offered, and every action answers `403`. Defaults to `false`. */
  readOnly?: boolean;
  /** The guard's `staleAfterSeconds`: a `processing` claim older than this is stuck. Defaults to 300. */
  staleAfterSeconds?: number;
  /**
   * How long after its receipt an inbox delivery may stay unfinished before the overview counts it
   * stuck (the alert watcher's and `observeInbox`'s `stuckAfterMs`, in seconds). Defaults to 300.
   */
  stuckAfterSeconds?: number;
  /**
   * The key of the CSRF tokens (HMAC-SHA256), at least 32 bytes. Defaults to random bytes drawn
   * when the dashboard is built: give every instance behind one load balancer the same secret,
   * or a form shown by one is refused by another (it only has to be reloaded).
   */
  secret?: string | Buffer;
  /** The `WWW-Authenticate` value of a `401` (for example `'Basic realm="webhooks"'`). Defaults to none. */
  challenge?: string;
  /** Called with every error behind a `5xx` page (a store failure, a throwing `authorize`). Defaults to nothing. */
  onError?: (error: unknown) => void;
}

/** A request as the dashboard's core reads it: the engine's neutral record, plus whether it came over TLS. */
export interface DashboardRequest<Native = unknown> extends HttpRequest<Native> {
  /** True over HTTPS: the CSRF cookie is then `Secure`. */
  readonly secure: boolean;
}
