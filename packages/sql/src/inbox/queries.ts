/**
 * @module Every statement of `SqlInbox`, written once from the dialect fragments (dialects.ts,
 * inbox-dialects.ts). `?` placeholders everywhere; values are always bound, never spliced in.
 */
import type { ChunkDelete, DialectSpec } from '../dialects';

/** The error a delivery records when its lease expired and another lease call took it over. */
export const LEASE_EXPIRED = 'LeaseExpired: the worker holding it stopped before settling it';

/** The inbox's statements for one dialect and table. */
export interface InboxQueries {
  /** Store a pending delivery unless its key is stored. Params: provider, externalId, orderingKey, headers, body. */
  readonly enqueue: string;
  /**
   * Pick due deliveries of `providers` providers, locking them; with `refs`, only their references
   * and counters (no body, no headers). `takeOver`: whether expired leases are taken over (all,
   * or none: pending deliveries only), or how many listed leases may be. Params: each provider,
   * then each listed lease's id and attempts, then the limit.
   */
  leaseSelect(providers: number, refs?: boolean, takeOver?: boolean | number): string;
  /** Processing deliveries whose lease ran out, after an id, references only. Params: each provider, the id, the limit. */
  lapsed(providers: number): string;
  /** Lease the picked rows. Params: leaseMs, then each id. */
  leaseUpdate(ids: number): string;
  /** Lease → done. Params: id, attempts. */
  readonly complete: string;
  /** Leases → done, each fenced as `complete`. Params: each id, then id and attempts of each. */
  completeMany(leases: number): string;
  /** Of `leases` leases, the ids now `done` under them. Params: those of `completeMany`. */
  doneOf(leases: number): string;
  /** Lease → pending after a delay; a non-null error is recorded and counted. Params: delayMs, error, 1 for a failure (0 for a release), id, attempts. */
  readonly retry: string;
  /** Keep `leases` leases for longer. Params: leaseMs, then id and attempts of each. */
  extend(leases: number): string;
  /** Lease → dead. Params: error, id, attempts. */
  readonly bury: string;
  /**
   * A finished delivery → pending, due now, if it is still in the status and at the attempts the
   * operator saw. Params: provider, externalId, status, attempts.
   */
  readonly redeliver: string;
  /** A pending delivery waiting for its backoff, at the attempts the operator saw → due now. Params: provider, externalId, attempts. */
  readonly retryNow: string;
  /** Whether the table exists (no rows either way). */
  readonly exists: string;
  /** One delivery by key. Params: provider, externalId. */
  readonly find: string;
  /**
   * Deliveries oldest first, without body and headers (the body's length instead); with the
   * filters asked for. Params: the id to list after, then in this order those given of status,
   * provider, received-from and received-before (epoch ms), then the limit.
   */
  list(filter: ListFilter): string;
  /** One batch of finished deliveries. Where params: olderThanMs. */
  readonly purgeChunk: ChunkDelete;
}

/** The last millisecond every dialect's timestamp column holds (MySQL's DATETIME ends in 9999). */
const LAST_STORABLE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A listing's received-time bounds (epoch ms) as its statement binds them. Every `received_at` is
 * a time of the database's clock, between 1970 and 9999, which every dialect's timestamp holds;
 * a bound outside those years selects what the nearest one inside does, so it is moved there
 * (PostgreSQL would fail on a year before 4713 BC, MySQL compare with NULL past 9999), and a
 * `before` past the last of them bounds nothing.
 */
export function storableRange(
  from: number | undefined,
  before: number | undefined,
): { readonly from: number | undefined; readonly before: number | undefined } {
  const clamp = (ms: number) => Math.min(Math.max(ms, 0), LAST_STORABLE_MS);
  return {
    from: from === undefined ? undefined : clamp(from),
    before: before === undefined || before > LAST_STORABLE_MS ? undefined : clamp(before),
  };
}

/** Which filters a listing has. */
export interface ListFilter {
  readonly status: boolean;
  readonly provider: boolean;
  readonly receivedFrom: boolean;
  readonly receivedBefore: boolean;
}

/** What the inbox's statements are built from, for one dialect and table. */
interface Fragments {
  readonly dialect: DialectSpec;
  /** The table, quoted. */
  readonly t: string;
  readonly now: string;
  /** The dialect's index hint for reading the unfinished deliveries ('' where it needs none). */
  readonly hint: string;
  /** A delivery's columns, whole. */
  readonly columns: string;
  /** A delivery without its headers and bytes (the body's length instead). */
  readonly summaryColumns: string;
}

/** What a relay needs of a delivery: its reference, its lease and its counters. */
const REF_COLUMNS = 'id, provider, external_id, status, attempts, failures';
const UNFINISHED = `status IN ('pending', 'processing')`;
/** One lease: the row, still processing, at the attempts it was leased with (its fence). */
const LEASED = `id = ? AND status = 'processing' AND attempts = ?`;

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * `leases` leases, each fenced as {@link LEASED}, in `status`: an id list the primary key serves,
 * each lease's attempts checked by a CASE on its id.
 */
const leasedEach = (leases: number, status: string) =>
  `id IN (${placeholders(leases)}) AND status = '${status}' AND CASE id ` +
  `${Array.from({ length: leases }, () => 'WHEN ? THEN attempts = ?').join(' ')} ELSE 1 = 0 END`;

function fragmentsOf(dialect: DialectSpec, table: string): Fragments {
  const hint =
    dialect.inbox.unfinished.hint?.({
      open: dialect.quote(`${table}_open_idx`),
      finished: dialect.quote(`${table}_finished_idx`),
    }) ?? '';
  const head = ['id', 'provider', 'external_id', 'ordering_key', 'status', 'attempts', 'failures'];
  const tail = [
    `${dialect.toMs('received_at')} AS received_ms`,
    `${dialect.toMs('available_at')} AS available_ms`,
    `${dialect.toMs('finished_at')} AS finished_ms`,
    'last_error',
  ];
  return {
    dialect,
    t: dialect.quote(table),
    now: dialect.now,
    hint,
    columns: [...head, 'headers', 'body', ...tail].join(', '),
    summaryColumns: [...head, 'LENGTH(body) AS body_bytes', ...tail].join(', '),
  };
}

/**
 * What a lease call may lease: pending deliveries, and the expired leases it takes over (all, none,
 * or `n` listed by id and attempts: the fence each was read under).
 */
function leasable(takeOver: boolean | number): string {
  if (takeOver === true) return `d.${UNFINISHED}`;
  if (takeOver === false || takeOver === 0) return `d.status = 'pending'`;
  const listed = Array.from({ length: takeOver }, () => '(d.id = ? AND d.attempts = ?)');
  return `(d.status = 'pending' OR (d.status = 'processing' AND (${listed.join(' OR ')})))`;
}

type IntakeStatements = Pick<InboxQueries, 'enqueue' | 'leaseSelect' | 'lapsed' | 'leaseUpdate'>;

/** A delivery in, and the lease call that leases due deliveries to a worker. */
function intakeStatements(
  { dialect, t, now, hint, columns }: Fragments,
  skipLocked: boolean,
): IntakeStatements {
  const { inbox } = dialect;
  // Only the oldest unfinished delivery of an ordering group is ever due: the rest wait for it.
  const headOfGroup =
    `(d.ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${t} e WHERE e.provider = d.provider ` +
    `AND e.ordering_key = d.ordering_key AND e.id < d.id AND e.${UNFINISHED}))`;
  return {
    enqueue:
      `INSERT INTO ${t} (provider, external_id, ordering_key, status, attempts, failures, headers, body, received_at, available_at) ` +
      `VALUES (?, ?, ?, 'pending', 0, 0, ?, ?, ${now}, ${now})${dialect.onConflictDoNothing}`,
    // `finished_at IS NULL` holds exactly for the unfinished rows: the lease call reads them in id
    // order from an index over them alone (a partial index, or (finished_at, id) from NULL), never
    // walking the done and dead rows, and locks only the rows it returns (InnoDB locks every row a
    // filesort reads, and the primary key would walk every finished row first).
    leaseSelect: (providers, refs = false, takeOver = true) =>
      `SELECT ${refs ? REF_COLUMNS : columns} FROM ${t} d${hint} WHERE d.finished_at IS NULL AND d.provider IN (${placeholders(providers)}) ` +
      `AND ${leasable(takeOver)} AND d.available_at <= ${now} AND ${headOfGroup} ` +
      `ORDER BY d.id LIMIT ?${inbox.lockClause(skipLocked)}`,
    lapsed: (providers) =>
      `SELECT ${REF_COLUMNS} FROM ${t} d${hint} WHERE d.finished_at IS NULL AND d.provider IN (${placeholders(providers)}) ` +
      `AND d.status = 'processing' AND d.available_at <= ${now} AND d.id > ? ORDER BY d.id LIMIT ?`,
    leaseUpdate: (ids) =>
      // Taking over an expired lease counts as a failure: its worker died or stalled (a delivery
      // that kills its worker every time must still reach the dead letter). The old status is
      // read before it is set: MySQL applies SET assignments left to right.
      `UPDATE ${t} SET failures = failures + CASE WHEN status = 'processing' THEN 1 ELSE 0 END, ` +
      `last_error = CASE WHEN status = 'processing' THEN '${LEASE_EXPIRED}' ELSE last_error END, ` +
      `status = 'processing', attempts = attempts + 1, available_at = ${inbox.plusMs(now)} ` +
      `WHERE id IN (${placeholders(ids)})`,
  };
}

type SettleStatements = Pick<
  InboxQueries,
  'complete' | 'completeMany' | 'doneOf' | 'retry' | 'extend' | 'bury'
>;

/** A worker's writes under its lease: done, back to pending, kept longer, dead; each fenced on the lease. */
function settleStatements({ dialect, t, now }: Fragments): SettleStatements {
  const later = dialect.inbox.plusMs(now);
  return {
    complete: `UPDATE ${t} SET status = 'done', finished_at = ${now} WHERE ${LEASED}`,
    completeMany: (leases) =>
      `UPDATE ${t} SET status = 'done', finished_at = ${now} WHERE ${leasedEach(leases, 'processing')}`,
    doneOf: (leases) => `SELECT id FROM ${t} WHERE ${leasedEach(leases, 'done')}`,
    retry:
      `UPDATE ${t} SET status = 'pending', available_at = ${later}, ` +
      `last_error = COALESCE(?, last_error), failures = failures + ? ` +
      `WHERE ${LEASED}`,
    extend: (leases) =>
      `UPDATE ${t} SET available_at = ${later} WHERE status = 'processing' AND (` +
      Array.from({ length: leases }, () => '(id = ? AND attempts = ?)').join(' OR ') +
      ')',
    bury:
      `UPDATE ${t} SET status = 'dead', finished_at = ${now}, last_error = ?, failures = failures + 1 ` +
      `WHERE ${LEASED}`,
  };
}

type OperatorStatements = Pick<
  InboxQueries,
  'redeliver' | 'retryNow' | 'exists' | 'find' | 'list' | 'purgeChunk'
>;

/** What an operator reads and repairs: one delivery, a listing, a redelivery, the purge of finished ones. */
function operatorStatements({
  dialect,
  t,
  now,
  columns,
  summaryColumns,
}: Fragments): OperatorStatements {
  return {
    redeliver:
      `UPDATE ${t} SET status = 'pending', available_at = ${now}, failures = 0, finished_at = NULL ` +
      `WHERE provider = ? AND external_id = ? AND status IN ('dead', 'done') AND status = ? AND attempts = ?`,
    retryNow:
      `UPDATE ${t} SET available_at = ${now} WHERE provider = ? AND external_id = ? ` +
      `AND status = 'pending' AND attempts = ? AND available_at > ${now}`,
    exists: `SELECT 1 AS present FROM ${t} WHERE 1 = 0`,
    find: `SELECT ${columns} FROM ${t} WHERE provider = ? AND external_id = ?`,
    // The received-time bounds compare the column itself (never toMs of it): an index on
    // received_at, where one is added, can serve them.
    list: ({ status, provider, receivedFrom, receivedBefore }) => {
      const where = [
        'id > ?',
        status ? 'status = ?' : '',
        provider ? 'provider = ?' : '',
        receivedFrom ? `received_at >= ${dialect.atMs}` : '',
        receivedBefore ? `received_at < ${dialect.atMs}` : '',
      ];
      const filter = ` WHERE ${where.filter(Boolean).join(' AND ')}`;
      return `SELECT ${summaryColumns} FROM ${t}${filter} ORDER BY id LIMIT ?`;
    },
    purgeChunk: dialect.deleteChunk(
      t,
      `status IN ('done', 'dead') AND finished_at <= ${dialect.minusMs(now)}`,
    ),
  };
}

/** Builds the statements for `table` (an identifier already validated). */
export function buildInboxQueries(
  dialect: DialectSpec,
  table: string,
  skipLocked: boolean,
): InboxQueries {
  const fragments = fragmentsOf(dialect, table);
  return {
    ...intakeStatements(fragments, skipLocked),
    ...settleStatements(fragments),
    ...operatorStatements(fragments),
  };
}
