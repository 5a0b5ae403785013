/**
 * @module docs/stores.md, D1: a payment booked in the same D1 batch as its receipt, as a Worker's
 * fetch handler does it; test/stores-d1.test.ts runs it twice against D1 in workerd.
 */
// #region batch
import { IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';
import { D1Store, type D1DatabaseLike } from '@webhook-idempotency/sql/d1';
// #endregion batch
import type { StripeEvents } from '@webhook-idempotency/providers/types/stripe';

type Succeeded = StripeEvents['payment_intent.succeeded'];
/**
 * What the booking reads of Stripe's own `payment_intent.succeeded` event (its signature already
 * checked): the event id, and the intent's id and amount.
 */
export type PaymentEvent = Pick<Succeeded, 'id'> & {
  readonly data: { readonly object: Pick<Succeeded['data']['object'], 'id' | 'amount'> };
};

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
