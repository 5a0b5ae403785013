/**
 * @module docs/stores.md, D1: a payment booked in the same D1 batch as its receipt, as a Worker's
 * fetch handler does it; test/stores-d1.test.ts runs it twice against D1 in workerd.
 */
// #region batch
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { D1Store, type D1DatabaseLike } from '@webhook-idempotency/sql/d1';
// #endregion batch

/** A Stripe event whose signature was already checked. */
export interface PaymentEvent {
  readonly id: string;
  readonly data: { readonly object: { readonly id: string; readonly amount: number } };
}

// #region batch

export async function bookPayment(
  env: { DB: D1DatabaseLike },
  event: PaymentEvent,
): Promise<Response> {
  const guard = new IdempotencyGuard(new D1Store(env.DB));
  const claim = await guard.claim(new RequestKey('stripe', event.id)); // a fresh claim elsewhere: RequestInProgress
  if (claim.isReplay) return Response.json(claim.response);
  const { id, amount } = event.data.object;
  // The payment row and the receipt's `completed` in one D1 batch: both are written, or neither.
  await claim.complete({ booked: id }, [
    env.DB.prepare('INSERT INTO payments (id, amount) VALUES (?, ?)').bind(id, amount),
  ]);
  return Response.json({ booked: id });
}
// #endregion batch
