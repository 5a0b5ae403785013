/**
 * @module One leased message, from its row to the write that ends its lease: the row read back
 * as what its sender gets ({@link readMessage}), one attempt under a deadline, and what came of
 * it (sent → done, a failure → retry or dead, a permanent refusal → dead, a stop → given back),
 * each write fenced by the lease.
 */
import { raceAbort } from '../abort';
import { ErrorCode } from '../errors';
import { errorText, boundedRun } from '../inbox/run';
import type { Delivery } from '../inbox/types';
import { retryDelayMs } from '../inbox/worker-options';
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
  /** Called just before a write that ends `row`'s lease (the lease keeper's `ending`). */
  ending(row: Delivery): void;
  /** Whether the lease keeper has reported `row`'s lease lost already (not to be told twice). */
  reportedLost(row: Delivery): boolean;
}

/**
 * The writes that end a message's lease, each fenced by the lease: a `false` answer is a lease
 * taken over (`lease-lost`), a store failure is reported and leaves the lease to run out.
 */
export class MessageLeaseEnds {
  constructor(private readonly scope: LeaseEndScope) {}

  /** Writes what `outcome` calls for on `row`. */
  async settle(row: Delivery, outcome: SendOutcome): Promise<void> {
    if (outcome.kind === 'sent') return this.sent(row);
    if (outcome.kind === 'stopped') return this.giveBack(row);
    return this.failed(row, outcome.text, outcome.permanent);
  }

  /** The receiving side accepted it: `done`. */
  async sent(row: Delivery): Promise<void> {
    const { outbox, emit } = this.scope;
    if (await this.endLease(row, 'complete', () => outbox.complete(row)))
      emit({ type: 'sent', message: messageRefOf(row), attempt: row.failures + 1 });
  }

  /** A failure (`text`): retried after a backoff, or `dead` when `permanent` or the last allowed. */
  async failed(row: Delivery, text: string, permanent: boolean): Promise<void> {
    const { outbox, emit, maxFailures, backoff } = this.scope;
    const message = messageRefOf(row);
    if (permanent || row.failures + 1 >= maxFailures) return this.bury(row, text);
    const delayMs = retryDelayMs(row.failures + 1, backoff);
    if (await this.endLease(row, 'retry', () => outbox.retry(row, { delayMs, error: text })))
      emit({ type: 'retry', message, delayMs, error: text });
  }

  /** `dead` with `text` as its error. */
  async bury(row: Delivery, text: string): Promise<void> {
    const { outbox, emit } = this.scope;
    if (await this.endLease(row, 'bury', () => outbox.bury(row, { error: text })))
      emit({ type: 'dead', message: messageRefOf(row), error: text });
  }

  /** `dead` without a send: the row cannot be sent (`problem`). */
  unsendable(row: Delivery, problem: string): Promise<void> {
    return this.bury(row, errorText(invalid(problem)));
  }

  /** Back to `pending`, due at once, no failure counted. */
  async giveBack(row: Delivery): Promise<void> {
    const { outbox, emit } = this.scope;
    if (await this.endLease(row, 'giveBack', () => outbox.giveBack(row, { delayMs: 0 })))
      emit({ type: 'given-back', message: messageRefOf(row) });
  }

  /** A write that ends the lease; `false` when it did not (lost, or the store failed). */
  private async endLease(
    row: Delivery,
    operation: string,
    write: () => Promise<boolean>,
  ): Promise<boolean> {
    const { emit } = this.scope;
    this.scope.ending(row);
    try {
      const ok = await write();
      if (!ok && !this.scope.reportedLost(row))
        emit({ type: 'lease-lost', message: messageRefOf(row) });
      return ok;
    } catch (error) {
      emit({ type: 'store-error', operation, error: errorText(error) });
      return false;
    }
  }
}
