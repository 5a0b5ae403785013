/** What the SDK judges of the test kit share: an hour ago, a delivery's text, and a judge's verdict. */
import type * as signers from '@webhook-idempotency/providers/testing';

/** A time an hour before now, outside every provider's window. */
export const HOUR_AGO = () => Date.now() - 3_600_000;

/** A delivery's body as the text an SDK verifies. */
export const text = (delivery: signers.Delivery) => delivery.body.toString('utf8');

/** True when `judge` returns (or resolves) truthy without throwing. */
export async function accepts(judge: () => unknown): Promise<boolean> {
  try {
    return Boolean(await judge());
  } catch {
    return false;
  }
}
