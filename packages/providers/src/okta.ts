/**
 * @module Okta event hooks preset: the header Okta sends with the secret you configured (Okta
 * signs nothing), each event of `data.events[]` an item keyed on its `uuid`, and the one-time
 * verification GET answered with `{"verification": …}` once its header secret matched.
 */
import { ConfigError, type HttpRequest } from '@webhook-idempotency/core';
import { batchedPreset, idOrContent } from './batched';
import type { PresetFactory } from './events';
import { optionalString, requireOptions } from './options';
import { header, idPart, isJsonObject, jsonBody } from './request-fields';
import { handshakeJson, handshakeText } from './response';
import type { Keyring, SecretOptions } from './secrets';
import { tokenHeaderMatch, tokenKeyring } from './token-header';

/**
 * Options of {@link okta}: `secret`, the event hook's "Authentication secret" (the whole header
 * value Okta sends), or several while you change it; or `resolveSecret`, a lookup per request.
 */
export type OktaOptions = SecretOptions<'secret', string> & {
  /**
   * The event hook's "Authentication field": the header that carries the secret. Defaults to
   * `authorization`.
   */
  header?: string;
};

/** One event of an Okta event hook as this preset reads it: `uuid` (its key) and `eventType` (its name). */
export type OktaMinimalEvent = { readonly uuid: string; readonly eventType: string };

/** Okta's event types (`user.session.start`, `user.lifecycle.create`…), each an {@link OktaMinimalEvent}. */
export type OktaMinimalEvents = Record<string, OktaMinimalEvent>;

const CHALLENGE = 'x-okta-verification-challenge';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** The events of a delivery: `data.events[]`. */
function oktaEvents(request: HttpRequest): readonly unknown[] | undefined {
  const data = jsonBody(request)?.data;
  return isJsonObject(data) && Array.isArray(data.events) ? data.events : undefined;
}

const REFUSED = handshakeText(401, 'Unauthorized');

/**
 * The answer to Okta's one-time verification GET: its challenge header echoed in JSON, once the
 * header secret matched one of the fixed secrets or a tenant's already looked up (a GET cannot
 * wait for a lookup: otherwise the read passes to your route); 401 when it matched none.
 */
function verificationAnswer(ring: Keyring<Buffer>, match: ReturnType<typeof tokenHeaderMatch>) {
  return (request: HttpRequest) => {
    const challenge = header(request, CHALLENGE);
    if (challenge === undefined || challenge === '') return undefined;
    const keys = ring.peek(request);
    if (keys === undefined) return undefined;
    if (match(request, keys) === undefined) return REFUSED;
    return handshakeJson(200, JSON.stringify({ verification: challenge }));
  };
}

/**
 * Okta event hooks preset: the System Log events an event hook delivers (`user.session.start`,
 * `user.lifecycle.create`…).
 *
 * - **Batched**: a delivery's `data.events[]` each get a receipt of their own, keyed on the
 *   event's `uuid` (else the SHA-256 of its content). Run them with `idempotency.batch.each`.
 * - **Handshake**: Okta's one-time verification GET (`X-Okta-Verification-Challenge`) is answered
 *   `{"verification": "<challenge>"}` once its header secret matched, 401 otherwise, with no
 *   receipt and without your handler. Mount the adapter on GET too. With `resolveSecret`, only a
 *   tenant already looked up is answered (a GET cannot wait for a lookup): others reach your route.
 * - **Authentication**: Okta signs nothing. The header named by `header` (`Authorization` by
 *   default) must equal the secret, compared in constant time (both sides hashed first). It covers
 *   neither the body nor a time: anyone who saw one request can send it again or send other
 *   events with it; keep the endpoint on HTTPS.
 * - **Retention**: 3 days. Okta waits 3 seconds for an answer and retries once after a timeout or
 *   an error.
 *
 * @example
 * const preset = providers.okta({ secret: process.env.OKTA_EVENT_HOOK_SECRET! });
 * @throws {ConfigError} naming `secret` or `header` when invalid.
 * @see docs/providers.md#okta-event-hooks
 */
export const okta: PresetFactory<OktaOptions, OktaMinimalEvents> = (options) => {
  const o = requireOptions('okta', options);
  const name = optionalString('okta', 'header', o.header, 'authorization').trim().toLowerCase();
  if (!HEADER_NAME.test(name))
    throw new ConfigError('header', `okta() needs "header" as a header name, got "${name}"`);
  const ring = tokenKeyring('okta', options, 'secret', 'the authentication secret');
  const match = tokenHeaderMatch(name);
  return batchedPreset(ring, {
    provider: 'okta',
    keyDescription: 'uuid of each event in data.events',
    needsRawBody: false,
    retentionDays: 3,
    items: oktaEvents,
    item: idOrContent((event) => idPart(event.uuid)),
    challenge: verificationAnswer(ring, match),
    signedWith: match,
    itemType: (event) => (isJsonObject(event) ? idPart(event.eventType) : undefined),
  });
};
