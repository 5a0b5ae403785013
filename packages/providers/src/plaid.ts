/**
 * @module Plaid preset: the ES256 JWT of `Plaid-Verification`, verified with the key its `kid`
 * names (fetched through your `fetchKey`, then kept), its `request_body_sha256` the SHA-256 of the
 * raw body; keyed on the webhook's type, code and content, as Plaid sends no delivery id.
 */
import type { KeyObject } from 'node:crypto';
import { ConfigError, type HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { canonicalFingerprint } from './fingerprint';
import { jwtSignatureValid, jwtTimely, parseJwt, stringClaim } from './jwt';
import { keyedPreset } from './keyed-preset';
import { clockOption, requireOptions, toleranceOption } from './options';
import { type PlaidKeyFetcher, plaidKeySource } from './plaid-keys';
import { header, idPart, joinedFields, jsonBody } from './request-fields';
import { keyring, type TimedSecretOptions } from './secrets';
import { bodyDigestClaim } from './signed-token';

export type { PlaidKeyFetcher, PlaidVerificationKey } from './plaid-keys';

/**
 * Options of {@link plaid}: `fetchKey`, your call of Plaid's `/webhook_verification_key/get`
 * (`(keyId) => client.webhookVerificationKeyGet({ key_id: keyId }).then((r) => r.data.key)`),
 * or `resolveSecret` giving one per tenant (one Plaid client each).
 *
 * `toleranceSeconds`: how far the token's `iat` may be from now, either way, in seconds. Defaults
 * to 300, Plaid's five minutes.
 */
export type PlaidOptions = TimedSecretOptions<'fetchKey', PlaidKeyFetcher>;

/** A Plaid webhook as this preset reads it. */
export interface PlaidMinimalWebhook {
  readonly webhook_type: string;
  readonly webhook_code: string;
}

/** Plaid's webhooks by `TYPE.CODE` (`TRANSACTIONS.SYNC_UPDATES_AVAILABLE`). */
export type PlaidMinimalEvents = Record<string, PlaidMinimalWebhook>;

type KeySource = (kid: string) => Promise<KeyObject | undefined>;

/** `TYPE:CODE:digest` of the webhook's content: Plaid sends no id, so its content is its identity. */
function webhookKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const type = idPart(body?.webhook_type);
  const code = idPart(body?.webhook_code);
  if (body === undefined || type === undefined || code === undefined) return undefined;
  return `${type}:${code}:${canonicalFingerprint(body)}`;
}

/** The check of a request's token against each fetcher's key for its `kid`. */
function plaidMatch(now: () => number, tolerance: number) {
  return async (request: HttpRequest, sources: readonly KeySource[]) => {
    const text = header(request, 'plaid-verification');
    const token = text === undefined ? undefined : parseJwt(text, ['ES256']);
    const kid = token === undefined ? undefined : stringClaim(token.header, 'kid');
    if (token === undefined || kid === undefined) return undefined;
    const time = { now, tolerance, required: ['iat'] as const, maxAgeSeconds: 0 };
    if (!jwtTimely(token.claims, time)) return undefined;
    if (!bodyDigestClaim(token.claims.request_body_sha256, request.rawBody, 'hex'))
      return undefined;
    for (const source of sources) {
      const key = await source(kid);
      if (key !== undefined && jwtSignatureValid(token, key)) return source;
    }
    return undefined;
  };
}

/**
 * Plaid preset (Transactions, Items, Auth, Identity Verification… webhooks).
 *
 * - **Key**: Plaid sends no delivery id: `webhook_type:webhook_code:` and the SHA-256 of the body's
 *   canonical JSON. A resend of the same webhook is the same key; two webhooks of equal content
 *   are one (a fallback, see the docs).
 * - **Signature**: `Plaid-Verification` is an ES256 JWT (nothing else is verified) whose header's
 *   `kid` names a key fetched with `fetchKey` and kept (an expired key is refused); its
 *   `request_body_sha256` must be the hex SHA-256 of the raw body and its `iat` within
 *   `toleranceSeconds` of the clock, both ways.
 * - **Retention**: 7 days: Plaid's retry window is not published.
 *
 * @example
 * const preset = providers.plaid({
 *   fetchKey: async (keyId) =>
 *     (await plaidClient.webhookVerificationKeyGet({ key_id: keyId })).data.key,
 * });
 * @throws {ConfigError} naming `fetchKey`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#plaid
 */
export const plaid: PresetFactory<PlaidOptions, PlaidMinimalEvents> = (options) => {
  const o = requireOptions('plaid', options);
  const now = clockOption('plaid', o.clock);
  const prepare = (fetchKey: PlaidKeyFetcher): KeySource => {
    if (typeof fetchKey !== 'function')
      throw new ConfigError('fetchKey', 'plaid() needs "fetchKey" as a function of a key id');
    return plaidKeySource(fetchKey, now);
  };
  const what = 'a function fetching the verification key of a key id';
  const ring = keyring(
    { preset: 'plaid', option: 'fetchKey', what, prepare, now },
    o.fetchKey,
    o.resolveSecret,
  );
  const tolerance = toleranceOption('plaid', o.toleranceSeconds, 300);

  return keyedPreset(ring, {
    provider: 'plaid',
    keyDescription: 'webhook_type:webhook_code and a digest of the body',
    needsRawBody: true,
    retentionDays: 7,
    id: webhookKey,
    signedWith: plaidMatch(now, tolerance),
    eventType: joinedFields('.', 'webhook_type', 'webhook_code'),
  });
};
