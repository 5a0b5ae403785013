/** @module Reading a receipt from a script's reply (`{flag, now, s, a, c, f, r, e, g}`). */
import type { KeyLike, ObservedReceipt, ReceiptStatus } from '@webhook-idempotency/core';

const STATUSES: ReadonlySet<string> = new Set(['processing', 'completed', 'failed']);

/** A reply that is not what the scripts return: another program wrote the key. */
export class UnexpectedReply extends Error {
  constructor(key: KeyLike, what: string) {
    super(
      `Redis answered an unexpected receipt for ${key.provider}/${key.externalId} (${what}); is another program writing under the store's prefix?`,
    );
    this.name = 'UnexpectedReply';
  }
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function integer(key: KeyLike, value: unknown, field: string): number {
  const n = Number(value);
  if (value === null || value === undefined || !Number.isSafeInteger(n))
    throw new UnexpectedReply(key, `${field} is ${String(value)}`);
  return n;
}

/**
 * The receipt of `key` in a script's reply, and its flag (won, taken over). `null` for a nil
 * reply (no receipt, or a refused take-over).
 * @throws {UnexpectedReply} when the reply is not a receipt.
 */
export function readReceipt(
  key: KeyLike,
  reply: unknown,
): { flag: boolean; receipt: ObservedReceipt } | null {
  if (reply === null || reply === undefined) return null;
  if (!Array.isArray(reply) || reply.length < 3) throw new UnexpectedReply(key, 'not a receipt');
  const [flag, now, status, attempts, claimedAt, finishedAt, response, error, fingerprint] =
    reply as unknown[];
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw new UnexpectedReply(key, `status ${String(status)}`);
  const claimed = integer(key, claimedAt, 'claimedAt');
  const finished =
    finishedAt === null || finishedAt === undefined ? null : integer(key, finishedAt, 'finishedAt');
  return {
    flag: Number(flag) === 1,
    receipt: {
      provider: key.provider,
      externalId: key.externalId,
      status: status as ReceiptStatus,
      response: text(response),
      attempts: integer(key, attempts, 'attempts'),
      error: text(error),
      fingerprint: text(fingerprint),
      claimedAt: new Date(claimed),
      finishedAt: finished === null ? null : new Date(finished),
      claimAgeMs: integer(key, now, 'now') - claimed,
    },
  };
}
