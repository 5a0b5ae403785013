/**
 * @module What every repair page shares: the receipt or delivery it is about, the confirmation
 * form (with the CSRF field) and the 409 page of an action that was not done.
 */
import { type Html, html } from '../html';
import { csrfField, link, page, type Reply, type View } from '../layout';
import { required } from '../query';

/** The pages an action is about, and the query parameters of their key (an outbox message's: its sender and effect key). */
const KEY_PARAMS = {
  '/receipt': ['provider', 'id'],
  '/delivery': ['provider', 'id'],
  '/outbox/message': ['sender', 'key'],
} as const;

/** The page of what an action acts on: a receipt, a delivery, an outbox message. */
export type SubjectPath = keyof typeof KEY_PARAMS;

/** The query of `path`'s page for `key`. */
export function keyParams(path: SubjectPath, key: { provider: string; externalId: string }) {
  const [provider, id] = KEY_PARAMS[path];
  return { [provider]: key.provider, [id]: key.externalId };
}

/** The receipt, delivery or message an action is about: its key, its page's query, and a link to that page. */
export function subjectOf(view: View, params: URLSearchParams, path: SubjectPath) {
  const [provider, id] = KEY_PARAMS[path];
  const key = { provider: required(params, provider), externalId: required(params, id) };
  const here = keyParams(path, key);
  return { key, here, back: link(view, path, here) };
}

/** A confirmation form: what will happen, an optional checkbox, the button and a way back. */
export function confirmForm(
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

/** A 409 page: the action was not done, and why. */
export const refused = (title: string, message: string | Html, back: string): Reply =>
  page(
    409,
    title,
    html`<h1>${title}</h1><p class="notice error" role="alert">${message}</p><p><a href="${back}">Back</a></p>`,
  );

/** What an action's page is about: the key, its page's query, and a link back to that page. */
export type Subject = ReturnType<typeof subjectOf>;

/** The key of what an action acts on. */
type Key = Subject['key'];

/**
 * What an action's POST came to: done (the word its page then shows, `released`), or refused and
 * why; `null` when there was nothing to act on.
 */
export type Performed =
  | { readonly done: string }
  | { readonly refusal: string; readonly why: string }
  | null;

/** What makes one action's POST on a receipt or a delivery. */
export interface ActionPost<Store, Seen> {
  /** The page of what it acts on. */
  readonly path: SubjectPath;
  /** The state the confirmation page showed, carried by its form (`seen.ts`). */
  readonly seen: (form: URLSearchParams) => Seen | undefined;
  /** The 404 page when there is nothing to act on. */
  readonly missing: (key: Key) => Reply;
  /** Performs the operation, a compare-and-set on `expected` when the form carried it. */
  readonly run: (
    view: View,
    store: Store,
    key: Key,
    form: URLSearchParams,
    expected: Seen | undefined,
  ) => Promise<Performed>;
}

/**
 * An action's POST on the receipt or delivery its query names: the operation run on the state the
 * page showed; then that thing's page marked done (a 303, so a reload does not repeat it), a 409
 * page saying why it was not done, or the 404 page when there is no such thing.
 */
export const actionPost =
  <Store, Seen>({ path, seen, missing, run }: ActionPost<Store, Seen>) =>
  async (
    view: View,
    store: Store,
    params: URLSearchParams,
    form: URLSearchParams,
  ): Promise<Reply> => {
    const { key, here, back } = subjectOf(view, params, path);
    const performed = await run(view, store, key, form, seen(form));
    if (!performed) return missing(key);
    if ('done' in performed)
      return { redirect: link(view, path, { ...here, done: performed.done }) };
    return refused(performed.refusal, performed.why, back);
  };
