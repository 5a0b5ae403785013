/**
 * @module What a confirmation page showed, carried in its form as hidden fields: the state the
 * operator confirmed. The action is a compare-and-set on it, so a delivery or a claim that moved
 * between the page and the click (a worker finished it, someone else retried it) is left as it is.
 */
import { leasesOf } from '@webhook-idempotency/core/adapter';
import { DeliveryStatus, type ExpectedDelivery } from '@webhook-idempotency/core/inbox';
import type { ExpectedClaim } from '@webhook-idempotency/core/operations';
import { type Html, html } from '../html';
import { BadInput, choice, whole } from '../query';

const MAX_ATTEMPTS = 2 ** 31 - 1;
const STATUSES = Object.values(DeliveryStatus);

/** The hidden fields of a delivery's state as the page showed it. */
export const seenDeliveryFields = (d: ExpectedDelivery): Html =>
  html`<input type="hidden" name="seenStatus" value="${d.status}"><input type="hidden" name="seenLeases" value="${leasesOf(d)}">`;

/** The hidden fields of a claim as the page showed it. */
export const seenClaimFields = (r: ExpectedClaim): Html =>
  html`<input type="hidden" name="seenAttempts" value="${r.attempts}"><input type="hidden" name="seenClaimed" value="${r.claimedAt.getTime()}">`;

/** Both fields or neither: a form with one of them was not made by this dashboard. */
function pair<A, B>(first: [string, A | undefined], second: [string, B | undefined]) {
  const [a, b] = [first[1], second[1]];
  if ((a === undefined) !== (b === undefined))
    throw new BadInput(a === undefined ? first[0] : second[0], 'is required with the other');
  return a === undefined || b === undefined ? undefined : ([a, b] as const);
}

/** The delivery state the form's page showed, or `undefined` (a form without it: the state read now stands for it). */
export function seenDelivery(form: URLSearchParams): ExpectedDelivery | undefined {
  // `seenAttempts`: the field's name on a page the version before rendered.
  const leases =
    form.has('seenAttempts') && !form.has('seenLeases') ? 'seenAttempts' : 'seenLeases';
  const seen = pair(
    ['seenStatus', choice(form, 'seenStatus', STATUSES)],
    [leases, whole(form, leases, 0, MAX_ATTEMPTS)],
  );
  return seen && { status: seen[0], leases: seen[1] };
}

/** The claim the form's page showed, or `undefined`. */
export function seenClaim(form: URLSearchParams): ExpectedClaim | undefined {
  const seen = pair(
    ['seenAttempts', whole(form, 'seenAttempts', 0, MAX_ATTEMPTS)],
    ['seenClaimed', whole(form, 'seenClaimed', 0, 8_640_000_000_000_000)],
  );
  return seen && { attempts: seen[0], claimedAt: new Date(seen[1]) };
}
