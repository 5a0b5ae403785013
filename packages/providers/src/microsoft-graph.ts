/**
 * @module Microsoft Graph change notifications preset: each notification of `value[]` an item
 * (Graph gives none an id: a digest of what changed is its key), each carrying the `clientState`
 * you set on the subscription (Graph signs basic notifications with nothing else), and the
 * `validationToken` POST that creates a subscription answered with the token.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { type BatchRow, batchedPreset, contentKey } from './batched';
import { secretMember } from './keyring-members';
import type { PresetFactory } from './events';
import { canonicalFingerprint } from './fingerprint';
import { bodyText, idPart, isJsonObject, jsonBody, type JsonObject } from './request-fields';
import { handshakeText } from './response';
import { firstMatch, type SecretOptions } from './secrets';
import { secretEquals } from './signature';
import { tokenKeyring } from './token-header';

/**
 * Options of {@link microsoftGraph}: `clientState`, the secret you set as `clientState` when
 * creating the subscriptions, or several (subscriptions renewed with a new one, or several
 * subscriptions on one URL); or `resolveSecret`, a lookup per request.
 */
export type MicrosoftGraphOptions = SecretOptions<'clientState', string>;

/** One change notification as this preset reads it: `changeType` (or `lifecycleEvent`) is its name. */
export interface MicrosoftGraphMinimalNotification {
  readonly subscriptionId: string;
  readonly clientState?: string;
  readonly changeType?: string;
  readonly lifecycleEvent?: string;
  readonly resource?: string;
  readonly resourceData?: { readonly id?: string };
}

/** Graph's change types and lifecycle events, each a {@link MicrosoftGraphMinimalNotification}. */
export type MicrosoftGraphMinimalEvents = Record<string, MicrosoftGraphMinimalNotification>;

/** The token of a subscription's validation request: a POST with `?validationToken=` and no body. */
function validationToken(request: HttpRequest): string | undefined {
  if (request.method !== 'POST') return undefined;
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  const token = query.get('validationToken');
  if (!token) return undefined;
  const body = bodyText(request);
  const parsed = request.body;
  const empty = (body === undefined || body === '') && (parsed === undefined || isEmpty(parsed));
  return empty ? token : undefined;
}

/** What a body parser leaves of an empty body: nothing, an empty string, object or buffer. */
const isEmpty = (parsed: unknown) =>
  parsed === null ||
  parsed === '' ||
  (parsed instanceof Uint8Array && parsed.length === 0) ||
  (isJsonObject(parsed) && Object.keys(parsed).length === 0);

/** The notifications of a delivery: `value[]`, each an object. */
function notifications(request: HttpRequest): JsonObject[] | undefined {
  const value = jsonBody(request)?.value;
  if (!Array.isArray(value) || value.length === 0 || !value.every(isJsonObject)) return undefined;
  return value;
}

/**
 * The digest a retry keeps: the subscription, what changed and the resource (its data: id, type,
 * etag). Not `subscriptionExpirationDateTime` (a renewal between two tries changes it) nor a rich
 * notification's `encryptedContent` (encrypted anew, UNCONFIRMED whether per try).
 */
const changeOf = (n: JsonObject) => ({
  subscriptionId: n.subscriptionId,
  tenantId: n.tenantId,
  changeType: n.changeType,
  lifecycleEvent: n.lifecycleEvent,
  resource: n.resource,
  resourceData: n.resourceData,
});

/**
 * The key among `keys` every notification's `clientState` equals (each may match another: one
 * URL may serve several subscriptions); `undefined` when one carries none that matches. A
 * validation request carries none: it passes, to be answered by the handshake and never booked.
 */
function clientStateMatch(request: HttpRequest, keys: readonly Buffer[]): Buffer | undefined {
  if (validationToken(request) !== undefined) return keys[0];
  const all = notifications(request);
  if (all === undefined) return undefined;
  let first: Buffer | undefined;
  for (const n of all) {
    const given = n.clientState;
    const key =
      typeof given === 'string' ? firstMatch(keys, (k) => secretEquals(given, k)) : undefined;
    if (key === undefined) return undefined;
    first ??= key;
  }
  return first;
}

/**
 * Microsoft Graph change notifications preset (Outlook mail, calendar, contacts, Teams, users,
 * groups, OneDrive… subscriptions), lifecycle notifications included.
 *
 * - **Batched**: the body's `value[]` each get a receipt of their own. Graph gives a notification
 *   no id: its key is `sha256:` and a digest of its subscription, tenant, `changeType` (or
 *   `lifecycleEvent`), `resource` and `resourceData` (with the resource's `@odata.etag` where Graph
 *   sends one). A retry is the same item; two changes of one resource are two items only where the
 *   etag tells them apart: without one, a second identical notification within the retention is
 *   answered as a duplicate. Re-read the resource from Graph on each item.
 * - **Handshake**: the validation request Graph sends when you create or renew a subscription
 *   (`POST ?validationToken=…`, no body) is answered 200 with the token as `text/plain`, with no
 *   receipt and without your handler.
 * - **Authentication**: basic notifications are signed with nothing; each must carry the
 *   `clientState` you set on the subscription, compared in constant time. It covers nothing else:
 *   anyone who saw one notification can send it again or send others with it; keep the endpoint
 *   on HTTPS. (Rich notifications' `validationTokens` JWTs are not checked here.)
 * - **Retention**: 3 days. Graph retries a notification it could not deliver with exponential
 *   backoff for up to 4 hours.
 *
 * @example
 * const preset = providers.microsoftGraph({ clientState: process.env.GRAPH_CLIENT_STATE! });
 * @throws {ConfigError} naming `clientState` when invalid.
 * @see docs/providers.md#microsoft-graph-change-notifications
 */
export const microsoftGraph: PresetFactory<MicrosoftGraphOptions, MicrosoftGraphMinimalEvents> =
  /* @__PURE__ */ secretMember<MicrosoftGraphOptions, Buffer, BatchRow<Buffer, JsonObject>>({
    provider: 'microsoft-graph',
    factory: 'microsoftGraph',
    secret: [tokenKeyring, 'clientState', 'the clientState secret'],
    family: batchedPreset,
    row: {
      keyDescription: 'notifications in value[]',
      needsRawBody: false,
      retentionDays: 3,
      items: notifications,
      // The fingerprint too leaves out what a retry may change: a retry after a renewal is a replay.
      item: (n) => ({
        id: contentKey(changeOf(n)),
        fingerprint: canonicalFingerprint(changeOf(n)),
      }),
      handshake(request) {
        const token = validationToken(request);
        return token === undefined ? undefined : handshakeText(200, token);
      },
      signedWith: clientStateMatch,
      itemType: (n) =>
        isJsonObject(n) ? (idPart(n.changeType) ?? idPart(n.lifecycleEvent)) : undefined,
    },
  });
