/**
 * @module The inbox's repairs (and the outbox's retry: its table has the inbox's shape), each a
 * confirmation page (GET: what it will do, computed from what is stored now) and its form's POST,
 * which runs the very operation the CLI runs: core's operator rules
 * (`@webhook-idempotency/core/operations`: `retryDelivery`, `redeliverDelivery`,
 * `retryDeadDeliveries`). Every write is a compare-and-set on what the page showed (its form
 * carries the state: `seen.ts`): what changed since is left as it is, and the answer says what it
 * is now.
 */
import { leasesOf } from '@webhook-idempotency/core/adapter';
import type {
  DeliveryStatus,
  InboxOperatorStore,
  StoredDelivery,
} from '@webhook-idempotency/core/inbox';
import {
  movedSince,
  redeliverDelivery,
  retryDeadDeliveries,
  retryDelivery,
} from '@webhook-idempotency/core/operations';
import { plural, utc } from '../format';
import { html, stored } from '../html';
import {
  keyText,
  link,
  noDelivery,
  noMessage,
  page,
  type Reply,
  type Section,
  type View,
} from '../layout';
import { choice, MAX_KEY_FIELD, text } from '../query';
import type { DashboardReceipts } from '../types';
import {
  type ActionPost,
  actionPost,
  confirmForm,
  refused,
  type Subject,
  type SubjectPath,
  subjectOf,
} from './action-parts';
import { seenDelivery, seenDeliveryFields } from './seen';

const DAY = 86_400_000;
/** The windows of the bulk retry, by name. */
const WINDOWS: Record<string, number> = { '1h': 3_600_000, '24h': DAY, '7d': 7 * DAY };

/** What a delivery action's confirmation page is made of. */
interface DeliveryConfirmation {
  /** The page of what it acts on (`/delivery`, `/outbox/message`), and its 404. Default: a delivery's. */
  readonly path?: SubjectPath;
  readonly missing?: (key: Subject['key']) => Reply;
  /** The statuses the action takes. */
  readonly takes: readonly DeliveryStatus[];
  /** The title of the page refusing a delivery in another status (`Nothing to retry`). */
  readonly refusal: string;
  /** Why a delivery in another status is refused. */
  readonly why: (d: StoredDelivery) => string;
  /** The page asking to confirm the action on `d`. */
  readonly ask: (view: View, d: StoredDelivery, subject: Subject) => Reply;
}

/**
 * A delivery action's confirmation page (GET): the delivery as stored now (a 404 page when there
 * is none), a 409 page saying why when its status is not one the action takes, else the page asking.
 */
const confirmation =
  ({ path = '/delivery', missing = noDelivery, takes, refusal, why, ask }: DeliveryConfirmation) =>
  async (view: View, inbox: InboxOperatorStore, params: URLSearchParams): Promise<Reply> => {
    const subject = subjectOf(view, params, path);
    const d = await inbox.find(subject.key.provider, subject.key.externalId);
    if (!d) return missing(subject.key);
    if (!takes.includes(d.status)) return refused(refusal, why(d), subject.back);
    return ask(view, d, subject);
  };

/** The words of a retry: of an inbox delivery, or of an outbox message. */
interface RetryWords {
  /** The page of what it retries, its 404, and the action's own path. */
  readonly path: SubjectPath;
  readonly missing: (key: Subject['key']) => Reply;
  readonly action: string;
  /** `delivery`, `message`. */
  readonly one: string;
  /** What runs it: `worker`, `dispatcher`. */
  readonly runner: string;
  /** Why a done one is not retried; and with what to do instead, on the confirmation page. */
  readonly done: string;
  readonly doneAdvice: string;
  readonly section: Section;
  /** The word of the notice its page shows once retried (`noticeOf`). */
  readonly notice: string;
}

/** GET of a retry: its confirmation page, in `words`. */
const confirmRetryOf = (words: RetryWords) =>
  confirmation({
    path: words.path,
    missing: words.missing,
    takes: ['dead', 'pending'],
    refusal: 'Nothing to retry',
    why: (d) =>
      d.status === 'done' ? words.doneAdvice : `It is processing: a ${words.runner} has it.`,
    ask(view, d, { key, here, back }) {
      const what =
        d.status === 'dead'
          ? `dead → pending, due now, its failure count from 0; lease ${leasesOf(d) + 1} next.`
          : `pending, made due now (it waits for its backoff until ${utc(d.availableAt)}); lease ${leasesOf(d) + 1} next.`;
      const body = html`<h1>Retry <span class="wrap">${keyText(key)}</span>?</h1>
<p>This puts it back for a ${words.runner}: ${what}</p>${d.lastError ? html`<p>Last error: <span class="wrap">${stored(d.lastError)}</span></p>` : ''}
<p>If it changes before the write (a ${words.runner} takes it, someone else retries it), it is left as it is.</p>
${confirmForm(view, link(view, words.action, here), `Retry the ${words.one}`, back, seenDeliveryFields(d))}`;
      return page(200, `Retry a ${words.one}`, body, words.section);
    },
  });

/** POST of a retry: `retryDelivery`, as `webhook-idempotency inbox retry` (`outbox retry`), on the state the page showed. */
const retryOf = (words: RetryWords) =>
  actionPost({
    path: words.path,
    seen: seenDelivery,
    missing: words.missing,
    run: async (_view, inbox: InboxOperatorStore, key, _form, expected) => {
      const outcome = await retryDelivery(inbox, key, expected ? { expected } : {});
      if (!outcome) return null;
      if (outcome.retried) return { done: words.notice };
      const { before, after } = outcome;
      const why = {
        due: `It is pending and due already: a ${words.runner} takes it at its next poll. Nothing was changed.`,
        processing: `It is processing: a ${words.runner} has it. Nothing was changed.`,
        done: `${words.done} Nothing was changed.`,
        changed: `It ${movedSince(expected ?? before, after)}: left as it is.`,
      }[outcome.reason];
      return { refusal: 'Not retried', why };
    },
  });

const DELIVERY_RETRY: RetryWords = {
  path: '/delivery',
  missing: noDelivery,
  action: '/delivery/retry',
  one: 'delivery',
  runner: 'worker',
  done: 'It is done: its handler ran and committed.',
  doneAdvice: 'It is done: its handler ran and committed. Redeliver it to run the handler again.',
  section: 'inbox',
  notice: 'retried',
};

const MESSAGE_RETRY: RetryWords = {
  path: '/outbox/message',
  missing: noMessage,
  action: '/outbox/retry',
  one: 'message',
  runner: 'dispatcher',
  done: 'It is done: it was sent.',
  doneAdvice: 'It is done: it was sent. The outbox sends a message once; nothing to retry.',
  section: 'outbox',
  notice: 'message-retried',
};

/** GET `/delivery/retry`. */
export const confirmRetry = confirmRetryOf(DELIVERY_RETRY);

/** POST `/delivery/retry`: `retryDelivery`, as `webhook-idempotency inbox retry`, on the state the page showed. */
export const retry = retryOf(DELIVERY_RETRY);

/** GET `/outbox/retry`: a dead outbox message (or one waiting for its backoff) sent again. */
export const confirmRetryMessage = confirmRetryOf(MESSAGE_RETRY);

/** POST `/outbox/retry`: `retryDelivery` on the outbox's table, as `webhook-idempotency outbox retry`. */
export const retryMessage = retryOf(MESSAGE_RETRY);

/** A delivery action's POST: on the delivery its query names, from the state its page showed. */
const deliveryPost = <Store>(
  run: ActionPost<Store, NonNullable<ReturnType<typeof seenDelivery>>>['run'],
) => actionPost({ path: '/delivery', seen: seenDelivery, missing: noDelivery, run });

/** GET `/delivery/redeliver`. */
export const confirmRedeliver = confirmation({
  takes: ['dead', 'done'],
  refusal: 'Nothing to redeliver',
  why: (d) => `It is ${d.status}, not finished.`,
  ask(view, d, { key, here, back }) {
    const done = d.status === 'done';
    const body = html`<h1>Redeliver <span class="wrap">${keyText(key)}</span>?</h1>
<p>${d.status} → pending, due now; lease ${leasesOf(d) + 1} next.</p>
${
  done
    ? html`<p class="notice error" role="alert">It is done: its handler ran and committed. Redelivering deletes its receipt and runs the handler again, so its effect happens a second time unless the handler is itself idempotent.</p>`
    : ''
}
${confirmForm(view, link(view, '/delivery/redeliver', here), 'Redeliver', back, html`${seenDeliveryFields(d)}${done ? html`<label class="check"><input type="checkbox" name="force" value="1" required> Run its handler again</label>` : ''}`, done)}`;
    return page(200, 'Redeliver a delivery', body, 'inbox');
  },
});

/** POST `/delivery/redeliver`: `redeliverDelivery`, as `webhook-idempotency redeliver [--force]`. */
export const redeliver = deliveryPost(
  async (
    _view,
    { inbox, receipts }: { inbox: InboxOperatorStore; receipts: DashboardReceipts },
    key,
    form,
    expected,
  ) => {
    const outcome = await redeliverDelivery({ inbox, receipts: async () => receipts }, key, {
      force: form.get('force') === '1',
      ...(expected ? { expected } : {}),
    });
    if (!outcome) return null;
    if (outcome.redelivered) return { done: 'redelivered' };
    const why = {
      'not-finished': `It is ${outcome.before.status}, not finished: nothing to redeliver.`,
      'needs-force': 'It is done: confirm that its handler should run again.',
      'receipt-processing': 'Its receipt is held by a run (processing): nothing was changed.',
      changed: `It ${movedSince(expected ?? outcome.before, outcome.after)}: left as it is.${outcome.receiptForgotten ? ' Its receipt had been deleted first.' : ''}`,
    }[outcome.reason];
    return { refusal: 'Not redelivered', why };
  },
);

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
