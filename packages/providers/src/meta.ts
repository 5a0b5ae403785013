/**
 * @module Meta webhooks preset (WhatsApp Cloud API, Messenger, Instagram): `entry[]` changes and
 * messaging events as items, `X-Hub-Signature-256` over the raw body, and the `hub.challenge`
 * verification GET answered before any claim.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { batchedPreset, contentKey } from './batched';
import type { PresetFactory } from './events';
import { canonicalFingerprint } from './fingerprint';
import { requireOptions, requireString } from './options';
import { hubSignatureMatch } from './hub-signature';
import { isJsonObject, jsonBody, type JsonObject } from './request-fields';
import { handshakeText } from './response';
import { firstMatch, listOf, type OneOrMany, type SecretOptions, stringKeyring } from './secrets';
import { secretDigest, secretEquals } from './signature';

/**
 * Options of {@link meta}: `appSecret`, the app secret (App settings, Basic; the key of
 * `X-Hub-Signature-256`), or both while you reset it; or `resolveSecret`, a lookup per request
 * (one app per customer).
 */
export type MetaOptions = SecretOptions<'appSecret', string> & {
  /**
   * The verify token you typed when subscribing the webhook (or several): with it the preset
   * answers Meta's verification GET (`hub.mode=subscribe`) with `hub.challenge` when the token
   * matches one, 403 otherwise. Without it that GET reaches your own route.
   */
  verifyToken?: OneOrMany<string>;
};

/** Meta's item kinds: a `changes[]` field (`messages`, `feed`…) or `messaging`, each a {@link MetaItem}. */
export type MetaMinimalEvents = Record<string, MetaItem>;

/**
 * One item of a Meta batch, as the handler gets it: the object kind, the entry it came in (its
 * `id`: the WhatsApp Business Account, the Page or the Instagram account; and its `time`), and
 * either one `changes[]` element (`field`, `value`) or one `messaging[]` event.
 */
export interface MetaItem {
  /** `whatsapp_business_account`, `page`, `instagram`… */
  readonly object: string;
  readonly entry: { readonly id: unknown; readonly time?: unknown };
  /** A `changes[]` element: `field` names what changed (`messages`, `comments`, `feed`…). */
  readonly change?: { readonly field: unknown; readonly value: unknown };
  /** A `messaging[]` event (Messenger, Instagram messaging). */
  readonly messaging?: JsonObject;
}

const MAX_ID = 160;

/** The query parameters of a request URL. */
const queryOf = (request: HttpRequest) => new URLSearchParams(request.url.split('?')[1] ?? '');

/** A string id, or `undefined`. */
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The natural id of an item when it carries exactly one: a WhatsApp message's `id`, a status's
 * `id:status` (one message has several statuses), a Messenger or Instagram message's `mid`.
 */
function naturalId(item: MetaItem): string | undefined {
  const value = isJsonObject(item.change?.value) ? item.change.value : undefined;
  const messages = Array.isArray(value?.messages) ? value.messages : [];
  const statuses = Array.isArray(value?.statuses) ? value.statuses : [];
  if (messages.length + statuses.length === 1) {
    const [one] = [...messages, ...statuses];
    if (!isJsonObject(one)) return undefined;
    const id = text(one.id);
    if (id === undefined || messages.length === 1) return id;
    const status = text(one.status);
    return status === undefined ? undefined : `${id}:${status}`;
  }
  const message = item.messaging?.message;
  return isJsonObject(message) ? text(message.mid) : undefined;
}

/** What identifies an item's content: everything but the entry's `time`, which a retry may change. */
const content = (item: MetaItem) => ({
  object: item.object,
  entry: item.entry.id,
  change: item.change,
  messaging: item.messaging,
});

/** The batch's items, in order: every `changes[]` and `messaging[]` element of every entry. */
function metaItems(body: JsonObject | undefined): MetaItem[] | undefined {
  const object = text(body?.object);
  if (object === undefined || !Array.isArray(body?.entry)) return undefined;
  const items: MetaItem[] = [];
  for (const entry of body.entry) {
    if (!isJsonObject(entry)) return undefined;
    const where = { id: entry.id, time: entry.time };
    for (const change of Array.isArray(entry.changes) ? entry.changes : [])
      items.push({
        object,
        entry: where,
        change: isJsonObject(change)
          ? { field: change.field, value: change.value }
          : { field: undefined, value: change },
      });
    for (const event of Array.isArray(entry.messaging) ? entry.messaging : [])
      items.push({ object, entry: where, messaging: isJsonObject(event) ? event : { event } });
  }
  return items;
}

/**
 * Meta webhooks preset: the WhatsApp Cloud API (`whatsapp_business_account`), Messenger (`page`)
 * and Instagram (`instagram`) notifications of one app.
 *
 * - **Batched**: the body's `entry[]` each carry `changes[]` or `messaging[]`; every element is an
 *   item with its own receipt (Meta batches up to 1000 updates per request). Its key is the id of
 *   the one message it carries (a WhatsApp message `id`, a status `id:status`, a Messenger or
 *   Instagram `mid`), else `sha256:` and the SHA-256 of its content. Run them with
 *   `idempotency.batch.each` and answer **200** (WhatsApp retries any other status).
 * - **Handshake**: with `verifyToken`, the GET Meta sends when you subscribe
 *   (`hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`) is answered with the challenge when
 *   the token matches, 403 otherwise, with no receipt. Mount the adapter on GET too.
 * - **Signature**: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` under the app
 *   secret. No timestamp is signed: a replayed capture meets its receipts while they are kept.
 * - **Retention**: 14 days. WhatsApp retries a failed notification with decreasing frequency for up
 *   to 7 days.
 *
 * @example
 * const preset = providers.meta({
 *   appSecret: process.env.META_APP_SECRET!,
 *   verifyToken: process.env.META_VERIFY_TOKEN!,
 * });
 * @throws {ConfigError} naming `appSecret` or `verifyToken` when invalid.
 * @see docs/providers.md#meta-whatsapp-messenger-instagram
 */
export const meta: PresetFactory<MetaOptions, MetaMinimalEvents> = (options) => {
  const { verifyToken } = requireOptions('meta', options);
  const ring = stringKeyring('meta', options, 'appSecret', 'the app secret');
  const tokens =
    verifyToken === undefined
      ? undefined
      : listOf(verifyToken).map((token) =>
          secretDigest(requireString('meta', 'verifyToken', token, 'the verify token')),
        );
  const forbidden: HttpResponseRecord = handshakeText(403, 'Forbidden');

  return batchedPreset(ring, {
    provider: 'meta',
    keyDescription: 'entry with changes or messaging',
    needsRawBody: true,
    retentionDays: 14,
    items: (request) => metaItems(jsonBody(request)),
    item(item) {
      const natural = naturalId(item);
      return {
        id: natural !== undefined && natural.length <= MAX_ID ? natural : contentKey(content(item)),
        fingerprint: canonicalFingerprint(content(item)),
      };
    },
    challenge(request) {
      if (tokens === undefined || tokens.length === 0) return undefined;
      const query = queryOf(request);
      const challenge = query.get('hub.challenge');
      if (query.get('hub.mode') !== 'subscribe' || !challenge) return undefined;
      const given = query.get('hub.verify_token');
      if (given === null || firstMatch(tokens, (token) => secretEquals(given, token)) === undefined)
        return forbidden;
      // The echo of text the request chose: plain text, never sniffed (handshakeText).
      return handshakeText(200, challenge);
    },
    signedWith: hubSignatureMatch,
    itemType(item) {
      if (!isJsonObject(item)) return undefined;
      if (isJsonObject(item.change)) return text(item.change.field);
      return item.messaging === undefined ? undefined : 'messaging';
    },
  });
};
