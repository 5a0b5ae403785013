/** @module SqlInbox: the `InboxStore` contract over PostgreSQL, MySQL/MariaDB or SQLite (DESIGN.md §13). */
import { ConfigError } from '@webhook-idempotency/core';
import type {
  Delivery,
  DeliveryLease,
  DeliveryStatus,
  InboxStore,
  NewDelivery,
  StoredDelivery,
} from '@webhook-idempotency/core';
import { checkKeyPart, DEFAULT_PURGE_BATCH_SIZE } from '@webhook-idempotency/core/adapter';
import { executorFor } from './connection';
import { dialects, isDuplicateKey, isMissingTable, type DialectSpec } from './dialects';
import type { Executor, Row } from './executor';
import { inboxDialects } from './inbox-dialects';
import { buildInboxQueries, type InboxQueries } from './inbox-queries';
import { resolveInboxTable } from './inbox-schema';
import type { SqlInboxOptions } from './inbox-types';
import { storableText } from './sql-store';
import type { SqlConnection, SqlDialect } from './types';

/** Most rows one `list` returns when no `limit` is given. */
const DEFAULT_LIST_LIMIT = 100;
/** Reads and fenced writes one `redeliver` tries before it reports that the delivery kept changing. */
const REDELIVER_ROUNDS = 3;
const STATUSES: ReadonlySet<string> = new Set(['pending', 'processing', 'done', 'dead']);

// Key columns are VARBINARY on MySQL: the driver hands them back as bytes.
const text = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
const nullableText = (value: unknown): string | null =>
  value === null || value === undefined ? null : text(value);
const bytes = (value: unknown): Buffer =>
  Buffer.isBuffer(value)
    ? value
    : value instanceof Uint8Array
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : Buffer.from(String(value ?? ''), 'utf8');
const date = (value: unknown): Date => new Date(Number(value));

function headersOf(value: unknown): Record<string, string> {
  const parsed = JSON.parse(text(value)) as unknown;
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
}

function toDelivery(row: Row, attempts = Number(row.attempts)): Delivery {
  return {
    id: Number(row.id),
    provider: text(row.provider),
    externalId: text(row.external_id),
    orderingKey: nullableText(row.ordering_key),
    headers: headersOf(row.headers),
    body: bytes(row.body),
    attempts,
    failures: Number(row.failures),
    receivedAt: date(row.received_ms),
  };
}

function toStored(row: Row): StoredDelivery {
  return {
    ...toDelivery(row),
    status: text(row.status) as DeliveryStatus,
    availableAt: date(row.available_ms),
    finishedAt:
      row.finished_ms === null || row.finished_ms === undefined ? null : date(row.finished_ms),
    lastError: nullableText(row.last_error),
  };
}

function positive(option: string, value: unknown, integer: boolean): void {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isSafeInteger(value))
  )
    throw new ConfigError(
      option,
      `must be a ${integer ? 'whole ' : ''}number >= 0, got ${String(value)}`,
    );
}

/**
 * Inbox deliveries in the application's own database (`webhook_inbox`; create it with
 * `InboxSchema.createTable(db)` or a migration from `InboxSchema.statements`). `db` is any
 * connection `SqlStore` accepts — a knex instance, a `pg` Pool, a `mysql2` pool or a
 * `better-sqlite3` Database — and is never opened or closed by the inbox. Every time is the
 * database's clock.
 *
 * Claims lock the rows they lease with `FOR UPDATE SKIP LOCKED` on PostgreSQL and MySQL 8 /
 * MariaDB 10.6+ (see {@link SqlInboxOptions.skipLocked} for older servers); on SQLite a claim
 * holds the database's single write lock (`BEGIN IMMEDIATE`) for its two statements.
 *
 * @example
 * const deliveries = new SqlInbox(pool);
 * await InboxSchema.createTable(pool);
 * app.post('/webhooks/stripe', express.raw({ type: '*\/*' }), inbox({ inbox: deliveries, preset }));
 * @see docs/inbox.md
 */
export class SqlInbox implements InboxStore {
  /** The dialect detected from `db`. */
  readonly dialect: SqlDialect;
  /** The deliveries table name. */
  readonly table: string;
  private readonly executor: Executor;
  private readonly spec: DialectSpec;
  private readonly sql: InboxQueries;

  /**
   * @throws {TypeError} when `db` is not a supported connection.
   * @throws {ConfigError} naming an invalid option.
   */
  constructor(db: SqlConnection, options: SqlInboxOptions = {}) {
    const { skipLocked = true } = options;
    this.table = resolveInboxTable(options.table);
    if (typeof skipLocked !== 'boolean') throw new ConfigError('skipLocked', 'must be a boolean');
    this.executor = executorFor(db, options);
    this.dialect = this.executor.dialect;
    this.spec = dialects[this.dialect];
    this.sql = buildInboxQueries(this.spec, inboxDialects[this.dialect], this.table, skipLocked);
  }

  /**
   * One `INSERT` that the unique `(provider, external_id)` index arbitrates. The key columns are
   * checked first, as a receipt key is (no NUL, no unpaired surrogate, at most 160 characters):
   * a value no dialect can store is refused with `InvalidRequestKey` naming the field, never sent
   * to the database to fail there as a driver error.
   */
  async enqueue(delivery: NewDelivery): Promise<boolean> {
    const { provider, externalId, orderingKey, headers, body } = delivery;
    checkKeyPart('provider', provider);
    checkKeyPart('externalId', externalId);
    if (orderingKey !== null) checkKeyPart('orderingKey', orderingKey);
    try {
      const { affected } = await this.executor.query(this.sql.enqueue, [
        provider,
        externalId,
        orderingKey,
        JSON.stringify(headers),
        body,
      ]);
      return affected === 1;
    } catch (error) {
      if (isDuplicateKey(this.spec, error)) return false;
      throw error;
    }
  }

  /** One short transaction: pick and lock the due rows, then lease them. */
  async claim({
    providers,
    limit,
    leaseMs,
  }: {
    readonly providers: readonly string[];
    readonly limit: number;
    readonly leaseMs: number;
  }): Promise<Delivery[]> {
    if (providers.length === 0 || limit < 1) return [];
    return this.executor.transaction(
      async (transaction) => {
        const { rows } = await this.executor.query(
          this.sql.claimSelect(providers.length),
          [...providers, limit],
          transaction,
        );
        if (rows.length === 0) return [];
        await this.executor.query(
          this.sql.claimUpdate(rows.length),
          [leaseMs, ...rows.map((row) => Number(row.id))],
          transaction,
        );
        return rows.map((row) => {
          const delivery = toDelivery(row, Number(row.attempts) + 1);
          return text(row.status) === 'processing'
            ? { ...delivery, failures: delivery.failures + 1 }
            : delivery;
        });
      },
      { lockStatement: this.spec.lockForWrite?.(this.spec.quote(this.table)) },
    );
  }

  async complete(lease: DeliveryLease): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.complete, [lease.id, lease.attempts]);
    return affected === 1;
  }

  async retry(
    lease: DeliveryLease,
    { delayMs, error }: { readonly delayMs: number; readonly error: string | null },
  ): Promise<boolean> {
    const text = error === null ? null : storableText(error);
    const { affected } = await this.executor.query(this.sql.retry, [
      Math.max(0, Math.round(delayMs)),
      text,
      text === null ? 0 : 1,
      lease.id,
      lease.attempts,
    ]);
    return affected === 1;
  }

  /** One `UPDATE` for the whole batch, each row fenced by its own lease. */
  async extend(
    leases: readonly DeliveryLease[],
    { leaseMs }: { readonly leaseMs: number },
  ): Promise<number> {
    if (leases.length === 0) return 0;
    const { affected } = await this.executor.query(this.sql.extend(leases.length), [
      Math.max(0, Math.round(leaseMs)),
      ...leases.flatMap((lease) => [lease.id, lease.attempts]),
    ]);
    return affected;
  }

  async bury(lease: DeliveryLease, { error }: { readonly error: string }): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.bury, [
      storableText(error),
      lease.id,
      lease.attempts,
    ]);
    return affected === 1;
  }

  /**
   * Reads the status, then one `UPDATE` fenced on it and on `attempts`; when a concurrent change
   * wins in between, reads again (a few times at most) and reports what it finds.
   * @example
   * if ((await inbox.redeliver('stripe', 'evt_1')) === null) console.log('not finished');
   */
  async redeliver(provider: string, externalId: string): Promise<'dead' | 'done' | null> {
    for (let round = 0; round < REDELIVER_ROUNDS; round++) {
      const { rows } = await this.executor.query(this.sql.statusOf, [provider, externalId]);
      const status = rows[0] ? text(rows[0].status) : null;
      if (status !== 'dead' && status !== 'done') return null;
      const { affected } = await this.executor.query(this.sql.redeliver, [
        provider,
        externalId,
        status,
        Number(rows[0]!.attempts),
      ]);
      if (affected === 1) return status;
    }
    return null;
  }

  /** One conditional `UPDATE`: only a pending delivery not due yet changes. */
  async retryNow(provider: string, externalId: string): Promise<boolean> {
    const { affected } = await this.executor.query(this.sql.retryNow, [provider, externalId]);
    return affected === 1;
  }

  /**
   * True when the deliveries table exists; false when the database reports it missing (for
   * operations tools; not part of `InboxStore`).
   */
  async tableExists(): Promise<boolean> {
    try {
      await this.executor.query(this.sql.exists, []);
      return true;
    } catch (error) {
      if (isMissingTable(this.spec, error)) return false;
      throw error;
    }
  }

  async find(provider: string, externalId: string): Promise<StoredDelivery | null> {
    const { rows } = await this.executor.query(this.sql.find, [provider, externalId]);
    return rows[0] ? toStored(rows[0]) : null;
  }

  /** @throws {ConfigError} for an unknown `status` or a `limit` that is not a positive whole number. */
  async list(
    input: {
      readonly status?: DeliveryStatus;
      readonly provider?: string;
      readonly limit?: number;
    } = {},
  ): Promise<StoredDelivery[]> {
    const { status, provider, limit = DEFAULT_LIST_LIMIT } = input;
    if (status !== undefined && !STATUSES.has(status))
      throw new ConfigError('status', `must be one of ${[...STATUSES].join(', ')}`);
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new ConfigError('limit', `must be a positive whole number, got ${String(limit)}`);
    const params: unknown[] = [];
    if (status !== undefined) params.push(status);
    if (provider !== undefined) params.push(provider);
    const statement = this.sql.list({
      status: status !== undefined,
      provider: provider !== undefined,
    });
    const { rows } = await this.executor.query(statement, [...params, limit]);
    return rows.map(toStored);
  }

  /**
   * Deletes `done` and `dead` deliveries finished more than `olderThanMs` ago, in batches of
   * `batchSize` rows (default 1000); never a pending or processing one.
   * @example
   * await inbox.purge({ olderThanMs: 30 * DAY });
   */
  async purge({
    olderThanMs,
    batchSize = DEFAULT_PURGE_BATCH_SIZE,
  }: {
    readonly olderThanMs: number;
    readonly batchSize?: number;
  }): Promise<number> {
    positive('olderThanMs', olderThanMs, false);
    positive('batchSize', batchSize, true);
    if (batchSize < 1) throw new ConfigError('batchSize', 'must be at least 1');
    const { sql, params } = this.sql.purgeBatch;
    const bound = params([olderThanMs], batchSize);
    let total = 0;
    for (;;) {
      const { affected } = await this.executor.query(sql, bound);
      total += affected;
      if (affected < batchSize) return total;
    }
  }
}
