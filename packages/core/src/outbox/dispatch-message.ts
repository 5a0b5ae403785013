/**
 * @module One leased message, from its row to the write that ends its lease: the row read back
 * as what its sender gets ({@link readMessage}), one attempt under a deadline, and what came of
 * it (sent → done, a failure → retry or dead, a permanent refusal → dead, a stop → given back),
 * each write fenced by the lease.
 */
import { raceAbort } from '../abort';
import { ErrorCode } from '../errors';
import type { LeaseKeeper } from '../inbox/lease-keeper';
import { lapsedTooOften, LeaseWrites } from '../inbox/lease-writes';
import { errorText, boundedRun } from '../inbox/run';
import type { Delivery } from '../inbox/types';
import type { DispatcherSettings } from './dispatcher-options';
import { invalid } from './outbox';
import { OutboxHeader, outboxRowOf } from './rows';
import { type OutboxRef, type OutboxSender, PermanentSendFailure, type SendInput } from './types';

/** A leased row as the dispatcher's events name it; the parts its headers lack are empty. */
export function messageRefOf(row: Delivery): OutboxRef {
  const { sender, key, name, receipt } = outboxRowOf(row);
  return {
    id: row.id,
    sender,
    key,
    name: name ?? '',
    receipt: receipt ?? { provider: '', externalId: '' },
  };
}

/** A row read back: its sender and what the sender gets (less the signal), or why it cannot be sent. */
export type ReadMessage =
  | { readonly sender: OutboxSender; readonly input: Omit<SendInput, 'signal'> }
  | { readonly problem: string };

/** What `row` is to send, or the problem that makes it unsendable (it is buried with it). */
export function readMessage(
  row: Delivery,
  senders: Readonly<Record<string, OutboxSender>>,
): ReadMessage {
  const sender = Object.hasOwn(senders, row.provider) ? senders[row.provider] : undefined;
  if (sender === undefined)
    return { problem: `no sender named "${row.provider}" in this dispatcher's senders` };
  const ref = messageRefOf(row);
  const lacking = Object.values(OutboxHeader).filter((h) => !row.headers[h]);
  if (lacking.length > 0)
    return {
      problem: `the row has no ${lacking.join(', ')} header (not recorded by Outbox.add)`,
    };
  let payload: unknown;
  try {
    payload = JSON.parse(row.body.toString('utf8'));
  } catch (error) {
    return { problem: `the payload is not JSON: ${(error as Error).message}` };
  }
  const { key, name, receipt } = ref;
  return { sender, input: { key, name, receipt, payload, attempt: row.failures + 1 } };
}

/** What one attempt came to. */
export type SendOutcome =
  | { readonly kind: 'sent' }
  /** The sender threw (or passed its deadline); `permanent` for a {@link PermanentSendFailure}. */
  | { readonly kind: 'failed'; readonly text: string; readonly permanent: boolean }
  /** The dispatcher stopped and stopped waiting for it. */
  | { readonly kind: 'stopped' };

/**
 * Whether a sender refused for good: a {@link PermanentSendFailure}, or a message it found invalid
 * (`ERR_IDEMPOTENCY_OUTBOX_MESSAGE_INVALID`), of this copy of core or of another one loaded beside
 * it (an app that loads both the ESM and the CommonJS build), by its name or its code.
 */
function isPermanent(error: unknown): boolean {
  if (error instanceof PermanentSendFailure) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'PermanentSendFailure' || code === ErrorCode.OUTBOX_MESSAGE_INVALID;
}

/** What a send that passed its deadline ends with: named as the platform's own timeouts are. */
function sendTimeout(timeoutMs: number): Error {
  const error = new Error(`the sender did not finish within ${timeoutMs} ms (sendTimeoutMs)`);
  error.name = 'TimeoutError';
  return error;
}

/**
 * Runs `sender` once with `input`, under a signal that aborts at `timeoutMs` or when `stop` aborts;
 * stops waiting at that moment whether the sender heeds its signal or not. Never rejects.
 */
export async function attempt(
  sender: OutboxSender,
  input: Omit<SendInput, 'signal'>,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<SendOutcome> {
  const run = boundedRun(timeoutMs, stop, () => sendTimeout(timeoutMs));
  try {
    const work = Promise.resolve().then(() => sender({ ...input, signal: run.signal }));
    await raceAbort(work, run.signal);
    return { kind: 'sent' };
  } catch (error) {
    if (stop.aborted) return { kind: 'stopped' };
    return {
      kind: 'failed',
      text: errorText(error),
      permanent: isPermanent(error),
    };
  } finally {
    run.end();
  }
}

/** What ending leases needs of the dispatcher. */
export interface LeaseEndScope
  extends Pick<DispatcherSettings, 'outbox' | 'maxFailures' | 'backoff' | 'emit'> {
  /** The keeper renewing the leases: told just before a write that ends one, asked what it reported lost. */
  readonly keeper: Pick<LeaseKeeper<Delivery>, 'ending' | 'reportedLost'>;
}

/**
 * The writes that end a message's lease (the inbox worker's, lease-writes.ts), told as the
 * outbox's events: a `false` answer is a lease taken over (`lease-lost`), a store failure is
 * reported and leaves the lease to run out.
 */
export class MessageLeaseEnds {
  private readonly writes: LeaseWrites;

  constructor(private readonly scope: LeaseEndScope) {
    const { emit } = scope;
    // The outbox's events: each names its message; a store error, its operation and text alone.
    this.writes = new LeaseWrites(
      { ...scope, store: scope.outbox },
      {
        lost: (row) => emit({ type: 'lease-lost', message: messageRefOf(row) }),
        storeError: (operation, error) =>
          emit({ type: 'store-error', operation, error: errorText(error) }),
        dead: (row, error) => emit({ type: 'dead', message: messageRefOf(row), error }),
        retry: (row, delayMs, error) =>
          emit({ type: 'retry', message: messageRefOf(row), delayMs, error }),
      },
    );
  }

  /** Writes what `outcome` calls for on `row`. */
  async settle(row: Delivery, outcome: SendOutcome): Promise<void> {
    if (outcome.kind === 'sent') return this.sent(row);
    if (outcome.kind === 'stopped') return this.giveBack(row);
    return this.writes.failed(row, outcome.text, outcome.permanent);
  }

  /** The receiving side accepted it: `done`. */
  async sent(row: Delivery): Promise<void> {
    if (await this.writes.complete(row))
      this.scope.emit({ type: 'sent', message: messageRefOf(row), attempt: row.failures + 1 });
  }

  /**
   * Taken over after as many failures as a message may have, the last a dispatcher that died
   * holding it (a message that kills its dispatcher every time must still reach the dead letter).
   */
  lapsed(row: Delivery): Promise<void> {
    return this.writes.bury(row, lapsedTooOften(row.failures, 'dispatcher'));
  }

  /** `dead` without a send: the row cannot be sent (`problem`). */
  unsendable(row: Delivery, problem: string): Promise<void> {
    return this.writes.bury(row, errorText(invalid(problem)));
  }

  /** Back to `pending`, due at once, no failure counted. */
  async giveBack(row: Delivery): Promise<void> {
    if (await this.writes.giveBack(row, 0))
      this.scope.emit({ type: 'given-back', message: messageRefOf(row) });
  }
}
