/**
 * @module The repairs, each a confirmation page (GET: what it will do, computed from what is
 * stored now) and its form's POST, which runs the very operation the CLI runs: core's operator
 * rules (`@webhook-idempotency/core/operations`: the admin's `release`, `retryDelivery`,
 * `redeliverDelivery`, `retryDeadDeliveries`) and the admin's chunked `purge`. Every write is a compare-and-set on what the page showed (its form carries the
 * state: `seen.ts`): what changed since is left as it is, and the answer says what it is now.
 */
import type { InboxOperatorStore } from '@webhook-idempotency/core/inbox';
import {
  movedSince,
  redeliverDelivery,
  retryDeadDeliveries,
  retryDelivery,
} from '@webhook-idempotency/core/operations';
import { age, plural, utc } from '../format';
import { type Html, html, stored } from '../html';
import {
  csrfField,
  keyText,
  link,
  page,
  problem,
  type Reply,
  type View,
  noDelivery,
  noReceipt,
} from '../layout';
import { choice, MAX_KEY_FIELD, text, whole } from '../query';
import type { DashboardReceipts } from '../types';
import { keyOf } from './receipts';
import { seenClaim, seenClaimFields, seenDelivery, seenDeliveryFields } from './seen';

const DAY = 86_400_000;
/** The windows of the bulk retry, by name. */
const WINDOWS: Record<string, number> = { '1h': 3_600_000, '24h': DAY, '7d': 7 * DAY };

/** The receipt or delivery an action is about: its key, its page's query, and a link to that page. */
function subjectOf(view: View, params: URLSearchParams, path: '/receipt' | '/delivery') {
  const key = keyOf(params);
  const here = { provider: key.provider, id: key.externalId };
  return { key, here, back: link(view, path, here) };
}

/** A confirmation form: what will happen, an optional checkbox, the button and a way back. */
function confirmForm(
  view: View,
  action: string,
  button: string,
  back: string,
  extra: Html | '' = '',
  danger = false,
): Html {
  return html`<form class="confirm" method="post" action="${action}">${csrfField(view)}${extra}
<div class="actions"><button type="submit"${danger ? html` class="danger"` : ''}>${button}</button><a href="${back}">Cancel</a></div></form>`;
}

const refused = (title: string, message: string | Html, back: string): Reply =>
  page(
    409,
    title,
    html`<h1>${title}</h1><p class="notice error" role="alert">${message}</p><p><a href="${back}">Back</a></p>`,
  );

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
export async function release(
  view: View,
  receipts: DashboardReceipts,
  params: URLSearchParams,
  form: URLSearchParams,
): Promise<Reply> {
  const { key, here, back } = subjectOf(view, params, '/receipt');
  const expected = seenClaim(form);
  const result = await receipts.release(key, {
    staleAfterMs: view.staleAfterMs,
    force: form.get('force') === '1',
    ...(expected ? { expected } : {}),
  });
  if (result.released) return { redirect: link(view, '/receipt', { ...here, done: 'released' }) };
  if (result.reason === 'not-found') return noReceipt(key);
  const why = {
    fresh: `Its claim is younger than ${age(view.staleAfterMs)}: confirm that it should be released although it is fresh.`,
    'not-processing': `It is ${result.receipt.status}, not processing: nothing to release.`,
    changed: `It is no longer the claim shown (now ${result.receipt.status}, attempt ${result.receipt.attempts}, claimed ${utc(result.receipt.claimedAt)}): left as it is.`,
  }[result.reason];
  return refused('Not released', why, back);
}

/** GET `/delivery/retry`. */
export async function confirmRetry(
  view: View,
  inbox: InboxOperatorStore,
  params: URLSearchParams,
): Promise<Reply> {
  const { key, here, back } = subjectOf(view, params, '/delivery');
  const d = await inbox.find(key.provider, key.externalId);
  if (!d) return noDelivery(key);
  if (d.status !== 'dead' && d.status !== 'pending')
    return refused(
      'Nothing to retry',
      d.status === 'done'
        ? 'It is done: its handler ran and committed. Redeliver it to run the handler again.'
        : 'It is processing: a worker has it.',
      back,
    );
  const what =
    d.status === 'dead'
      ? `dead → pending, due now, its failure count from 0; attempt ${d.attempts + 1} next.`
      : `pending, made due now (it waits for its backoff until ${utc(d.availableAt)}); attempt ${d.attempts + 1} next.`;
  const body = html`<h1>Retry <span class="wrap">${keyText(key)}</span>?</h1>
<p>This puts it back for a worker: ${what}</p>${d.lastError ? html`<p>Last error: <span class="wrap">${stored(d.lastError)}</span></p>` : ''}
<p>If it changes before the write (a worker takes it, someone else retries it), it is left as it is.</p>
${confirmForm(view, link(view, '/delivery/retry', here), 'Retry the delivery', back, seenDeliveryFields(d))}`;
  return page(200, 'Retry a delivery', body, 'inbox');
}

/** POST `/delivery/retry`: `retryDelivery`, as `webhook-idempotency inbox retry`, on the state the page showed. */
export async function retry(
  view: View,
  inbox: InboxOperatorStore,
  params: URLSearchParams,
  form: URLSearchParams,
): Promise<Reply> {
  const { key, here, back } = subjectOf(view, params, '/delivery');
  const expected = seenDelivery(form);
  const outcome = await retryDelivery(inbox, key, expected ? { expected } : {});
  if (!outcome) return noDelivery(key);
  if (outcome.retried) return { redirect: link(view, '/delivery', { ...here, done: 'retried' }) };
  const { before, after } = outcome;
  const why = {
    due: 'It is pending and due already: a worker takes it at its next poll. Nothing was changed.',
    processing: 'It is processing: a worker has it. Nothing was changed.',
    done: 'It is done: its handler ran and committed. Nothing was changed.',
    changed: `It ${movedSince(expected ?? before, after)}: left as it is.`,
  }[outcome.reason];
  return refused('Not retried', why, back);
}

/** GET `/delivery/redeliver`. */
export async function confirmRedeliver(
  view: View,
  inbox: InboxOperatorStore,
  params: URLSearchParams,
): Promise<Reply> {
  const { key, here, back } = subjectOf(view, params, '/delivery');
  const d = await inbox.find(key.provider, key.externalId);
  if (!d) return noDelivery(key);
  if (d.status !== 'dead' && d.status !== 'done')
    return refused('Nothing to redeliver', `It is ${d.status}, not finished.`, back);
  const done = d.status === 'done';
  const body = html`<h1>Redeliver <span class="wrap">${keyText(key)}</span>?</h1>
<p>${d.status} → pending, due now; attempt ${d.attempts + 1} next.</p>
${
  done
    ? html`<p class="notice error" role="alert">It is done: its handler ran and committed. Redelivering deletes its receipt and runs the handler again, so its effect happens a second time unless the handler is itself idempotent.</p>`
    : ''
}
${confirmForm(view, link(view, '/delivery/redeliver', here), 'Redeliver', back, html`${seenDeliveryFields(d)}${done ? html`<label class="check"><input type="checkbox" name="force" value="1" required> Run its handler again</label>` : ''}`, done)}`;
  return page(200, 'Redeliver a delivery', body, 'inbox');
}

/** POST `/delivery/redeliver`: `redeliverDelivery`, as `webhook-idempotency redeliver [--force]`. */
export async function redeliver(
  view: View,
  inbox: InboxOperatorStore,
  receipts: DashboardReceipts,
  params: URLSearchParams,
  form: URLSearchParams,
): Promise<Reply> {
  const { key, here, back } = subjectOf(view, params, '/delivery');
  const expected = seenDelivery(form);
  const outcome = await redeliverDelivery({ inbox, receipts: async () => receipts }, key, {
    force: form.get('force') === '1',
    ...(expected ? { expected } : {}),
  });
  if (!outcome) return noDelivery(key);
  if (outcome.redelivered)
    return { redirect: link(view, '/delivery', { ...here, done: 'redelivered' }) };
  const why = {
    'not-finished': `It is ${outcome.before.status}, not finished: nothing to redeliver.`,
    'needs-force': 'It is done: confirm that its handler should run again.',
    'receipt-processing': 'Its receipt is held by a run (processing): nothing was changed.',
    changed: `It ${movedSince(expected ?? outcome.before, outcome.after)}: left as it is.${outcome.receiptForgotten ? ' Its receipt had been deleted first.' : ''}`,
  }[outcome.reason];
  return refused('Not redelivered', why, back);
}

function bulkFilter(params: URLSearchParams) {
  const provider = text(params, 'provider');
  const since = choice(params, 'since', Object.keys(WINDOWS));
  return {
    provider,
    since,
    options: { ...(provider ? { provider } : {}), ...(since ? { sinceMs: WINDOWS[since]! } : {}) },
  };
}

/** GET `/deliveries/retry-dead`: a dry run of the bulk retry for the chosen filter. */
export async function confirmRetryDead(
  view: View,
  inbox: InboxOperatorStore,
  params: URLSearchParams,
): Promise<Reply> {
  const { provider, since, options } = bulkFilter(params);
  const { matched } = await retryDeadDeliveries(inbox, { ...options, dryRun: true });
  const here = { provider, since };
  const option = (value: string, label: string) =>
    html`<option value="${value}"${(since ?? '') === value ? html` selected` : ''}>${label}</option>`;
  const body = html`<h1>Retry dead deliveries</h1>
<form class="filters" method="get" action="${link(view, '/deliveries/retry-dead')}" aria-label="Which dead deliveries">
<label>Provider<input name="provider" value="${provider ?? ''}" maxlength="${MAX_KEY_FIELD}" dir="auto"></label>
<label>Died within<select name="since">${option('', 'any time')}${option('1h', 'the last hour')}${option('24h', 'the last 24 hours')}${option('7d', 'the last 7 days')}</select></label>
<button type="submit">Show</button></form>
<p role="status">${plural(matched.length, 'dead delivery', 'dead deliveries')} match${matched.length === 1 ? 'es' : ''}${provider ? html` (provider ${stored(provider)})` : ''}.</p>
${
  matched.length
    ? html`<div class="scroll list"><table class="rows"><thead><tr><th scope="col">provider</th><th scope="col">id</th><th scope="col">died</th><th scope="col">last error</th></tr></thead><tbody>${matched
        .slice(0, 50)
        .map(
          (d) =>
            html`<tr><td class="wrap">${stored(d.provider)}</td><td class="wrap id">${stored(d.externalId)}</td><td data-label="died">${d.finishedAt ? utc(d.finishedAt) : '-'}</td><td class="wrap err">${d.lastError === null ? '' : stored(d.lastError)}</td></tr>`,
        )}</tbody></table></div>${matched.length > 50 ? html`<p class="muted">and ${matched.length - 50} more.</p>` : ''}
<p>Each goes dead → pending, due now, its failure count from 0, if it is still dead as listed when its turn comes: one that a worker or another retry changed meanwhile is left as it is, and the result lists it. Dead ones that arrive meanwhile and match are retried too.</p>
${confirmForm(view, link(view, '/deliveries/retry-dead', here), `Retry ${plural(matched.length, 'delivery', 'deliveries')}`, link(view, '/deliveries', { status: 'dead' }))}`
    : ''
}`;
  return page(200, 'Retry dead deliveries', body, 'inbox');
}

/** POST `/deliveries/retry-dead`: `retryDeadDeliveries`, as `webhook-idempotency inbox retry --all-dead`. */
export async function retryDead(
  view: View,
  inbox: InboxOperatorStore,
  params: URLSearchParams,
): Promise<Reply> {
  const { provider, options } = bulkFilter(params);
  const { retried, left } = await retryDeadDeliveries(inbox, options);
  const body = html`<h1>Retried</h1><p class="notice" role="status">Retried ${plural(retried, 'dead delivery', 'dead deliveries')}${provider ? html` of ${stored(provider)}` : ''}: dead → pending, due now.${left.length ? ` ${plural(left.length, 'delivery was', 'deliveries were')} no longer dead as listed and ${left.length === 1 ? 'was' : 'were'} left as ${left.length === 1 ? 'it is' : 'they are'}:` : ''}</p>
${
  left.length
    ? html`<div class="scroll list"><table class="rows"><thead><tr><th scope="col">provider</th><th scope="col">id</th><th scope="col">left as it is: it</th></tr></thead><tbody>${left.map(
        ({ delivery: d, now }) =>
          html`<tr><td class="wrap">${stored(d.provider)}</td><td class="wrap id"><a href="${link(view, '/delivery', { provider: d.provider, id: d.externalId })}">${stored(d.externalId)}</a></td><td data-label="now">${movedSince(d, now)}</td></tr>`,
      )}</tbody></table></div>`
    : ''
}
<p><a href="${link(view, '/deliveries', { status: 'pending' })}">See the pending deliveries</a></p>`;
  return page(200, 'Retried', body, 'inbox');
}

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
