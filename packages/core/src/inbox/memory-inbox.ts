/** @module InMemoryInbox: the `InboxStore` contract over Maps, for tests and single-process development. */
import { ConfigError } from '../errors';
import { checkKeyPart } from '../request-key';
import { backlogOf, resolveBacklogInput } from './backlog';
import type { BacklogInput, InboxBacklog } from './figures';
import { resolveListInput, resolvePurgeInput } from './list-input';
import {
  type InMemoryInboxOptions,
  keyOf,
  type LapsedInput,
  LEASE_EXPIRED,
  refOf,
  resolveInMemoryInboxOptions,
  type Row,
  storableText,
  toDelivery,
  toStored,
  toSummary,
} from './memory-inbox-rows';
import type { InboxStore, LeaseInput, LeaseRefsInput } from './inbox-store';
import { leasesOf } from './lease-count';
import { MAX_LEASE_LIMIT } from './run';
import {
  type Delivery,
  type DeliveryLease,
  DeliveryStatus,
  type DeliveryListInput,
  type DeliverySummary,
  type ExpectedDelivery,
  type LeasedRef,
  type NewDelivery,
  type StoredDelivery,
} from './types';

export type { InMemoryInboxOptions } from './memory-inbox-rows';

/**
 * Keeps inbox deliveries in this process's memory, with `SqlInbox`'s semantics: every method runs
 * to completion without yielding, which makes it atomic **within one process only**. Nothing is
 * durable (a restart loses every stored delivery, acknowledged or not) and two processes each
 * have their own: use it for tests and single-process development, `SqlInbox` for anything a
 * provider's delivery must survive. Bodies and headers are copied in and out, so a caller's
 * `Buffer` never aliases a stored one. No timers, nothing to close. It has no link to a receipts
 * store (no `receipts`, no `completeIn`: `InMemoryStore` has no transactions to write in), so a
 * worker marks deliveries done after each handler's receipt is written, and runs each delivery on
 * its own, never in groups.
 *
 * @example
 * const inbox = new InMemoryInbox();
 * const worker = createInboxWorker({ inbox, store: new InMemoryStore(), handlers: { stripe: handle } });
 * @see docs/inbox.md
 */
export class InMemoryInbox implements InboxStore {
  private readonly now: () => number;
  /** Every delivery by id, in id order (ids only grow; a purge deletes, never reorders). */
  private readonly rows = new Map<number, Row>();
  /** Every delivery by provider and external id. */
  private readonly byKey = new Map<string, Row>();
  /** The pending and processing deliveries, in id order: what lease calls and `lapsed` read. */
  private open = new Map<number, Row>();
  private lastId = 0;

  /** @throws {ConfigError} naming an invalid or unknown option. */
  constructor(options: InMemoryInboxOptions = {}) {
    this.now = resolveInMemoryInboxOptions(options).now;
  }

  /**
   * Stores a copy of `delivery`, due now, unless its key is stored (`false`, nothing changed).
   * @throws {InvalidRequestKey} for a key part `SqlInbox` would refuse (empty, a NUL, too long).
   */
  async enqueue(delivery: NewDelivery): Promise<boolean> {
    checkKeyPart('provider', delivery.provider);
    checkKeyPart('externalId', delivery.externalId);
    if (delivery.orderingKey !== null) checkKeyPart('orderingKey', delivery.orderingKey);
    const key = keyOf(delivery.provider, delivery.externalId);
    if (this.byKey.has(key)) return false;
    const now = this.now();
    const row: Row = {
      id: ++this.lastId,
      provider: delivery.provider,
      externalId: delivery.externalId,
      orderingKey: delivery.orderingKey,
      headers: { ...delivery.headers },
      body: Buffer.from(delivery.body),
      receivedAt: now,
      status: DeliveryStatus.PENDING,
      leases: 0,
      failures: 0,
      availableAt: now,
      finishedAt: null,
      lastError: null,
    };
    this.rows.set(row.id, row);
    this.byKey.set(key, row);
    this.open.set(row.id, row);
    return true;
  }

  /**
   * Leases the due heads of their ordering groups, oldest first, in one step nothing interleaves.
   * @throws {ConfigError} for a `limit` above 1000, as `SqlInbox`.
   */
  async lease(input: LeaseInput): Promise<Delivery[]> {
    return this.leaseRows(input).map(toDelivery);
  }

  /** As {@link InMemoryInbox.lease}, resolving with references only: no body, no headers. */
  async leaseRefs(input: LeaseRefsInput): Promise<LeasedRef[]> {
    return this.leaseRows(input).map(refOf);
  }

  /** @deprecated Use {@link InMemoryInbox.lease}. */
  claim(input: LeaseInput): Promise<Delivery[]> {
    return this.lease(input);
  }

  /** @deprecated Use {@link InMemoryInbox.leaseRefs}. */
  claimRefs(input: LeaseRefsInput): Promise<LeasedRef[]> {
    return this.leaseRefs(input);
  }

  /** Leases the due heads of their ordering groups, oldest first; a takeover counts a failure. */
  private leaseRows({ providers, limit, leaseMs, takeOver = true }: LeaseRefsInput): Row[] {
    if (limit > MAX_LEASE_LIMIT)
      throw new ConfigError('limit', `must be at most ${MAX_LEASE_LIMIT}`);
    if (providers.length === 0 || limit < 1) return [];
    const now = this.now();
    const wanted = new Set(providers);
    const groupsSeen = new Set<string>();
    const leased: Row[] = [];
    for (const row of this.open.values()) {
      if (leased.length >= limit) break;
      if (row.orderingKey !== null) {
        // Only the oldest unfinished delivery of a group is ever due: the rest wait for it.
        const group = keyOf(row.provider, row.orderingKey);
        if (groupsSeen.has(group)) continue;
        groupsSeen.add(group);
      }
      if (!wanted.has(row.provider) || row.availableAt > now) continue;
      if (row.status === DeliveryStatus.PROCESSING) {
        const mayTake =
          takeOver === true ||
          (Array.isArray(takeOver) &&
            takeOver.some((l) => l.id === row.id && leasesOf(l) === row.leases));
        if (!mayTake) continue;
        // Its worker died or stalled: a delivery that kills its worker must still reach the dead letter.
        row.failures += 1;
        row.lastError = LEASE_EXPIRED;
      }
      row.status = DeliveryStatus.PROCESSING;
      row.leases += 1;
      row.availableAt = now + leaseMs;
      leased.push(row);
    }
    return leased;
  }

  /** The processing deliveries whose lease ran out, in id order after `afterId`. A plain read. */
  async lapsed({ providers, limit, afterId }: LapsedInput): Promise<LeasedRef[]> {
    if (providers.length === 0 || limit < 1) return [];
    const now = this.now();
    const wanted = new Set(providers);
    const found: LeasedRef[] = [];
    for (const row of this.open.values()) {
      if (found.length >= limit) break;
      if (
        row.id > afterId &&
        row.status === DeliveryStatus.PROCESSING &&
        row.availableAt <= now &&
        wanted.has(row.provider)
      )
        found.push(refOf(row));
    }
    return found;
  }

  /** The delivery under `lease` while it is still held (processing, same leases), else `undefined`. */
  private held(lease: DeliveryLease): Row | undefined {
    const row = this.rows.get(lease.id);
    return row?.status === DeliveryStatus.PROCESSING && row.leases === leasesOf(lease)
      ? row
      : undefined;
  }

  /** Marks a finished row: `done` or `dead`, out of the open set. */
  private finish(row: Row, status: 'done' | 'dead'): void {
    row.status = status;
    row.finishedAt = this.now();
    this.open.delete(row.id);
  }

  async complete(lease: DeliveryLease): Promise<boolean> {
    const row = this.held(lease);
    if (!row) return false;
    this.finish(row, DeliveryStatus.DONE);
    return true;
  }

  async retry(
    lease: DeliveryLease,
    { delayMs, error }: { readonly delayMs: number; readonly error: string | null },
  ): Promise<boolean> {
    if (error === null) return this.giveBack(lease, { delayMs });
    const row = this.pendingAgain(lease, delayMs);
    if (!row) return false;
    row.lastError = storableText(error);
    row.failures += 1;
    return true;
  }

  async giveBack(
    lease: DeliveryLease,
    { delayMs }: { readonly delayMs: number },
  ): Promise<boolean> {
    return this.pendingAgain(lease, delayMs) !== undefined;
  }

  /** The leased row back to `pending`, due after `delayMs`; `undefined` when the lease was lost. */
  private pendingAgain(lease: DeliveryLease, delayMs: number): Row | undefined {
    const row = this.held(lease);
    if (!row) return undefined;
    row.status = DeliveryStatus.PENDING;
    row.availableAt = this.now() + Math.max(0, Math.round(delayMs));
    return row;
  }

  async extend(
    leases: readonly DeliveryLease[],
    { leaseMs }: { readonly leaseMs: number },
  ): Promise<number> {
    const until = this.now() + Math.max(0, Math.round(leaseMs));
    const extended = new Set<Row>();
    for (const lease of leases) {
      const row = this.held(lease);
      if (row) {
        row.availableAt = until;
        extended.add(row);
      }
    }
    return extended.size;
  }

  async bury(lease: DeliveryLease, { error }: { readonly error: string }): Promise<boolean> {
    const row = this.held(lease);
    if (!row) return false;
    row.lastError = storableText(error);
    row.failures += 1;
    this.finish(row, DeliveryStatus.DEAD);
    return true;
  }

  /** A compare-and-set on `expected`: a delivery that moved since it was read stays as it is. */
  async redeliver(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'dead' | 'done'>,
  ): Promise<boolean> {
    const row = this.byKey.get(keyOf(provider, externalId));
    if (
      !row ||
      (row.status !== DeliveryStatus.DEAD && row.status !== DeliveryStatus.DONE) ||
      row.status !== expected.status ||
      row.leases !== leasesOf(expected)
    )
      return false;
    row.status = DeliveryStatus.PENDING;
    row.availableAt = this.now();
    row.failures = 0;
    row.finishedAt = null;
    // Back among the open ones, in id order (a redelivery is rare: an operator's act).
    const entries: Array<[number, Row]> = [...this.open, [row.id, row]];
    this.open = new Map(entries.sort(([a], [b]) => a - b));
    return true;
  }

  async retryNow(
    provider: string,
    externalId: string,
    expected: ExpectedDelivery<'pending'>,
  ): Promise<boolean> {
    const row = this.byKey.get(keyOf(provider, externalId));
    const now = this.now();
    if (
      row?.status !== DeliveryStatus.PENDING ||
      expected.status !== DeliveryStatus.PENDING ||
      row.leases !== leasesOf(expected) ||
      row.availableAt <= now
    )
      return false;
    row.availableAt = now;
    return true;
  }

  /** A copy of the delivery stored under this key, or `null`. */
  async find(provider: string, externalId: string): Promise<StoredDelivery | null> {
    const row = this.byKey.get(keyOf(provider, externalId));
    return row ? toStored(row) : null;
  }

  /**
   * Summaries, oldest first, as `SqlInbox` lists them: `limit` defaults to 100, at most 10 000;
   * `afterId` (default 0) for the next page; `receivedFrom` (inclusive) and `receivedBefore`
   * (exclusive) compared with this inbox's clock.
   * @throws {ConfigError} for an unknown `status`, a `limit` that is not a whole number from 1 to
   * 10 000, an `afterId` that is not a whole number, or a time bound that is not a valid Date.
   */
  async list(input: DeliveryListInput = {}): Promise<DeliverySummary[]> {
    const { status, provider, receivedFromMs, receivedBeforeMs, limit, afterId } =
      resolveListInput(input);
    const found: DeliverySummary[] = [];
    for (const row of this.rows.values()) {
      if (found.length >= limit) break;
      if (
        row.id > afterId &&
        (status === undefined || row.status === status) &&
        (provider === undefined || row.provider === provider) &&
        (receivedFromMs === undefined || row.receivedAt >= receivedFromMs) &&
        (receivedBeforeMs === undefined || row.receivedAt < receivedBeforeMs)
      )
        found.push(toSummary(row));
    }
    return found;
  }

  /**
   * Deletes `done` and `dead` deliveries finished at least `olderThanMs` ago; never a pending or
   * processing one. `chunkSize` is checked as `SqlInbox` checks it (memory needs no chunks).
   */
  async purge(input: Parameters<InboxStore['purge']>[0]): Promise<number> {
    // chunkSize is checked as SqlInbox checks it; memory deletes in one pass.
    const { olderThanMs } = resolvePurgeInput(input);
    const cutoff = this.now() - olderThanMs;
    let deleted = 0;
    for (const row of this.rows.values()) {
      if (row.finishedAt !== null && row.finishedAt <= cutoff) {
        this.rows.delete(row.id);
        this.byKey.delete(keyOf(row.provider, row.externalId));
        deleted++;
      }
    }
    return deleted;
  }

  /** One pass over the stored deliveries, with `SqlInbox`'s limits; ages by this inbox's clock. */
  async backlog(input: BacklogInput): Promise<InboxBacklog> {
    return backlogOf(this.rows.values(), this.now(), resolveBacklogInput(input));
  }
}
