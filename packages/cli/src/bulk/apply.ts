/**
 * @module The writes of `redeliver` by query: each selected delivery through the inbox repairs
 * every other command runs (`redeliverDelivery` for a dead or done one, `retryDelivery` for a
 * waiting one), each a compare-and-set on the status and leases it was listed (or planned) with.
 * One that moved meanwhile is left as it is and reported with what it is now. A plan file (what a
 * `--dry-run --json` printed) is read back here too.
 */
import type { InboxStore, StoredDelivery } from '@webhook-idempotency/core/inbox';
import {
  type ForgetsReceipts,
  movedSince,
  redeliverDelivery,
  retryDelivery,
} from '@webhook-idempotency/sql';
import { readFileSync } from 'node:fs';
import { CliError, ExitCode } from '../exit-codes';
import type { Planned } from './query';

/** A selected delivery the run did not change, and why. */
export interface Left {
  readonly planned: Planned;
  /** What it is now (`null`: deleted meanwhile). */
  readonly now: StoredDelivery | null;
  /** In words: `was done meanwhile`, `its receipt is held by a run (processing)`. */
  readonly reason: string;
}

/** What a run did: the deliveries it changed, and those it left as they are. */
export interface Applied {
  readonly changed: readonly Planned[];
  readonly left: readonly Left[];
}

/** Applies one planned change; `undefined` when it was made, what it is now otherwise. */
async function applyOne(
  inbox: InboxStore,
  receipts: () => Promise<ForgetsReceipts>,
  planned: Planned,
): Promise<Omit<Left, 'planned'> | undefined> {
  const key = { provider: planned.provider, externalId: planned.externalId };
  const expected = { status: planned.status, leases: planned.leases };
  if (planned.status === 'pending') {
    const outcome = await retryDelivery(inbox, key, { expected });
    if (!outcome) return { now: null, reason: movedSince(expected, null) };
    if (outcome.retried) return undefined;
    return { now: outcome.after, reason: movedSince(expected, outcome.after) };
  }
  const outcome = await redeliverDelivery({ inbox, receipts }, key, {
    force: planned.status === 'done',
    expected,
  });
  if (!outcome) return { now: null, reason: movedSince(expected, null) };
  if (outcome.redelivered) return undefined;
  if (outcome.reason === 'receipt-processing')
    return { now: outcome.after, reason: 'its receipt is held by a run (processing)' };
  return { now: outcome.after, reason: movedSince(expected, outcome.after) };
}

/** Applies each planned change in turn, each only while the delivery is still as planned. */
export async function applyPlanned(
  inbox: InboxStore,
  receipts: () => Promise<ForgetsReceipts>,
  selected: readonly Planned[],
): Promise<Applied> {
  const changed: Planned[] = [];
  const left: Left[] = [];
  for (const planned of selected) {
    const moved = await applyOne(inbox, receipts, planned);
    if (moved) left.push({ planned, ...moved });
    else changed.push(planned);
  }
  return { changed, left };
}

const STATUSES: ReadonlySet<string> = new Set(['dead', 'pending', 'done']);

/** One entry of a plan file as a planned change, or a reason it is not one. */
function plannedOf(entry: unknown, index: number): Planned {
  const e = (entry ?? {}) as Record<string, unknown>;
  const bad = (what: string) =>
    new CliError(ExitCode.USAGE, `The plan's delivery ${index + 1} ${what}.`);
  if (typeof e.provider !== 'string' || typeof e.externalId !== 'string')
    throw bad('has no provider and externalId');
  if (typeof e.status !== 'string' || !STATUSES.has(e.status))
    throw bad('has no status of dead, pending or done');
  // A plan written before the rename names the lease count `attempts`.
  const leases = e.leases ?? e.attempts;
  if (!Number.isSafeInteger(leases) || (leases as number) < 0)
    throw bad('has no whole number of leases');
  const time = (value: unknown) => new Date(typeof value === 'string' ? value : Number.NaN);
  return {
    id: Number.isSafeInteger(e.id) ? (e.id as number) : 0,
    provider: e.provider,
    externalId: e.externalId,
    status: e.status as Planned['status'],
    leases: leases as number,
    receivedAt: time(e.receivedAt),
    availableAt: time(e.availableAt),
  };
}

/**
 * The deliveries a `redeliver … --dry-run --json` printed (its `deliveries`), read from `file`,
 * each with the state it was listed in.
 * @throws {CliError} `USAGE` when the file cannot be read or is not such a listing.
 */
export function readPlan(file: string): Planned[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(
      ExitCode.USAGE,
      `Cannot read the plan ${file}: ${(error as Error).message}. Write one with: webhook-idempotency redeliver --status … --dry-run --json > ${file}`,
      { cause: error },
    );
  }
  const { dryRun, deliveries } = (parsed ?? {}) as { dryRun?: unknown; deliveries?: unknown };
  if (dryRun !== true || !Array.isArray(deliveries))
    throw new CliError(
      ExitCode.USAGE,
      `${file} is not what redeliver --dry-run --json prints (a dry run's deliveries).`,
    );
  return deliveries.map(plannedOf);
}
