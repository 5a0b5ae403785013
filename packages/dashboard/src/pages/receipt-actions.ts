/**
 * @module The receipts' repairs, each a confirmation page (GET: what it will do, computed from
 * what is stored now) and its form's POST, which runs the very operation the CLI runs: the
 * admin's fenced `release` and its chunked `purge`. A release is a compare-and-set on the claim
 * the page showed (its form carries it: `seen.ts`): a claim that changed since is left as it is,
 * and the answer says what it is now.
 */
import { age, plural, utc } from '../format';
import { html, stored } from '../html';
import { keyText, link, noReceipt, page, problem, type Reply, type View } from '../layout';
import { MAX_KEY_FIELD, text, whole } from '../query';
import type { DashboardReceipts } from '../types';
import { actionPost, confirmForm, refused, subjectOf } from './action-parts';
import { seenClaim, seenClaimFields } from './seen';

const DAY = 86_400_000;

/** GET `/receipt/release`. */
export async function confirmRelease(
  view: View,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const { key, here, back } = subjectOf(view, params, '/receipt');
  const r = await receipts.find(key);
  if (!r) return noReceipt(key);
  if (r.status !== 'processing')
    return refused(
      'Nothing to release',
      html`${keyText(key)} is ${r.status}, not processing.`,
      back,
    );
  const fresh = r.claimAgeMs < view.staleAfterMs;
  const body = html`<h1>Release <span class="wrap">${keyText(key)}</span>?</h1>
<p>Claimed ${age(r.claimAgeMs)} ago (${utc(r.claimedAt)}), attempt ${r.attempts}.</p>
<p>This marks it <strong>failed</strong> (processing → failed). The provider's next delivery of it runs the handler again, as attempt ${r.attempts + 1}. If the receipt changes before the write (its worker finishes, or another takes it over), nothing is written.</p>
${
  fresh
    ? html`<p class="notice error" role="alert">Its claim is younger than ${age(view.staleAfterMs)}: its worker may still be running. If it is, its result will be refused.</p>`
    : ''
}
${confirmForm(view, link(view, '/receipt/release', here), 'Release the claim', back, html`${seenClaimFields(r)}${fresh ? html`<label class="check"><input type="checkbox" name="force" value="1" required> Release it although it is fresh</label>` : ''}`, true)}`;
  return page(200, 'Release a claim', body, 'receipts');
}

/** POST `/receipt/release`: the admin's fenced release, as `webhook-idempotency release [--force]`. */
export const release = actionPost({
  path: '/receipt',
  seen: seenClaim,
  missing: noReceipt,
  async run(view, receipts: DashboardReceipts, key, form, expected) {
    const result = await receipts.release(key, {
      staleAfterMs: view.staleAfterMs,
      force: form.get('force') === '1',
      ...(expected ? { expected } : {}),
    });
    if (result.released) return { done: 'released' };
    if (result.reason === 'not-found') return null;
    const why = {
      fresh: `Its claim is younger than ${age(view.staleAfterMs)}: confirm that it should be released although it is fresh.`,
      'not-processing': `It is ${result.receipt.status}, not processing: nothing to release.`,
      changed: `It is no longer the claim shown (now ${result.receipt.status}, attempt ${result.receipt.attempts}, claimed ${utc(result.receipt.claimedAt)}): left as it is.`,
    }[result.reason];
    return { refusal: 'Not released', why };
  },
});

function purgeFilter(params: URLSearchParams) {
  const retentionDays = whole(params, 'retentionDays', 0, 36_500);
  const provider = text(params, 'provider');
  return {
    retentionDays,
    provider,
    scope: { olderThanMs: (retentionDays ?? 0) * DAY, ...(provider ? { provider } : {}) },
  };
}

/** GET `/purge`: the retention to purge by, and how many finished receipts it would delete now. */
export async function confirmPurge(
  view: View,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const { retentionDays, provider, scope } = purgeFilter(params);
  const count = retentionDays === undefined ? undefined : await receipts.countPurgeable(scope);
  const here = { retentionDays, provider };
  const what = html`finished ${provider ? html`${stored(provider)} ` : ''}receipts${retentionDays ? ` that finished more than ${plural(retentionDays, 'day')} ago` : ''}`;
  const body = html`<h1>Purge receipts</h1>
<form class="filters" method="get" action="${link(view, '/purge')}" aria-label="Retention">
<label>Keep receipts finished within (days)<input type="number" name="retentionDays" min="0" max="36500" required value="${retentionDays ?? ''}"></label>
<label>Provider (optional)<input name="provider" value="${provider ?? ''}" maxlength="${MAX_KEY_FIELD}" dir="auto"></label>
<button type="submit">Count</button></form>
<p class="muted">A receipt must outlive its provider's redelivery window: a redelivery of a purged receipt runs the handler again (docs/providers.md lists each window). Processing receipts are never purged.</p>
${
  count === undefined
    ? ''
    : html`<p role="status">${plural(count, 'receipt')} would be deleted now: every ${what}.</p>${
        count
          ? confirmForm(
              view,
              link(view, '/purge', here),
              `Delete ${plural(count, 'receipt')}`,
              link(view, '/'),
              '',
              true,
            )
          : ''
      }`
}`;
  return page(200, 'Purge receipts', body, 'purge');
}

/** POST `/purge`: the admin's batched purge, as `webhook-idempotency purge --retention-days`. */
export async function purge(
  view: View,
  receipts: DashboardReceipts,
  params: URLSearchParams,
): Promise<Reply> {
  const { retentionDays, provider, scope } = purgeFilter(params);
  if (retentionDays === undefined)
    return problem(400, 'No retention', 'Choose how many days of finished receipts to keep.');
  const deleted = await receipts.purge(scope);
  const body = html`<h1>Purged</h1><p class="notice" role="status">Deleted ${plural(deleted, 'finished receipt')}${provider ? html` of ${stored(provider)}` : ''}${retentionDays ? ` older than ${plural(retentionDays, 'day')}` : ''}.</p><p><a href="${link(view, '/')}">Back to the overview</a></p>`;
  return page(200, 'Purged', body, 'purge');
}
