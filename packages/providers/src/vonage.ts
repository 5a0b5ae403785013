/**
 * @module Vonage preset (Messages and Dispatch API signed webhooks): the message's
 * `message_uuid` (with its `status` on a status webhook) as the key, the HS256 JWT of
 * `Authorization: Bearer` verified with the signature secret, its `payload_hash` the SHA-256 of
 * the raw body.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { bearerToken } from './jwt';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { timedMember } from './keyring-members';
import { header, idPart, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { bodyDigestClaim, tokenMatch } from './signed-token';

/**
 * Options of {@link vonage}: `signatureSecret`, the account's signature secret (Dashboard,
 * Settings), or several while you change it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: how far the token's `iat` may be from now, either way, in seconds. Defaults
 * to 300.
 */
export type VonageOptions = TimedSecretOptions<'signatureSecret'>;

/** A Messages API webhook as this preset reads it: `message_uuid`, and `status` on a status webhook. */
export interface VonageMinimalMessage {
  readonly message_uuid: string;
  readonly status?: string;
  readonly message_type?: string;
}

/** Vonage's webhooks by name (`eventType(request)`: a status, or the inbound message's type). */
export type VonageMinimalEvents = Record<string, VonageMinimalMessage>;

/** The message's id, with the status a status webhook reports (one message is submitted, then delivered, then read). */
function messageKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  const uuid = idPart(body?.message_uuid);
  if (uuid === undefined) return undefined;
  const status = idPart(body?.status);
  return status === undefined ? uuid : `${uuid}:${status}`;
}

/**
 * Vonage preset (Messages API and Dispatch API webhooks: inbound messages and message statuses).
 *
 * - **Key**: `message_uuid`; on a status webhook `message_uuid:status`, as one message reports
 *   each of its statuses once.
 * - **Signature**: `Authorization: Bearer <JWT>`, HS256 only, signed with the signature secret;
 *   its `payload_hash` must be the hex SHA-256 of the raw body and its `iat` within
 *   `toleranceSeconds` of the clock, both ways.
 * - **Retention**: 7 days: Vonage retries an answer other than 2xx, its schedule unpublished.
 *
 * @example
 * const preset = providers.vonage({ signatureSecret: process.env.VONAGE_SIGNATURE_SECRET! });
 * @throws {ConfigError} naming `signatureSecret`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#vonage
 */
export const vonage: PresetFactory<VonageOptions, VonageMinimalEvents> =
  /* @__PURE__ */ timedMember<VonageOptions, Buffer, KeyedRow<Buffer>>({
    provider: 'vonage',
    secret: ['signatureSecret', 'the signature secret'],
    toleranceSeconds: 300,
    toKey: (secret) => Buffer.from(secret, 'utf8'),
    family: keyedPreset,
    row: (_, { now, tolerance }) => ({
      keyDescription: 'message_uuid (and status) in the body',
      needsRawBody: true,
      retentionDays: 7,
      id: messageKey,
      signedWith: tokenMatch<Buffer>({
        token: (request) => bearerToken(header(request, 'authorization')),
        algorithms: ['HS256'],
        time: { now, tolerance, required: ['iat'], maxAgeSeconds: 0 },
        claims: (claims, request) => bodyDigestClaim(claims.payload_hash, request.rawBody, 'hex'),
      }),
      eventType: (request) => {
        const body = jsonBody(request);
        return idPart(body?.status) ?? idPart(body?.message_type);
      },
    }),
  });
