/**
 * @module Upstash QStash preset: the `Upstash-Message-Id` header as the key, the HS256 JWT of
 * `Upstash-Signature` verified with the current or next signing key, its subject the endpoint's
 * URL and its `body` claim the SHA-256 of the raw body.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { timedMember } from './keyring-members';
import { stringClaim } from './jwt';
import { requireString } from './options';
import { header, headerId } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { bodyDigestClaim, tokenMatch } from './signed-token';

/**
 * Options of {@link qstash}: `signingKey`, the current and the next signing key of the QStash
 * console (either may sign while Upstash rolls them), or `resolveSecret`; and `url`, the
 * endpoint's URL exactly as QStash calls it (the token's subject).
 *
 * `toleranceSeconds`: how far the token's `iat` may be from now, either way, in seconds; its `exp`
 * and `nbf` are read with the same skew. Defaults to 300, the lifetime QStash gives its tokens.
 */
export type QStashOptions = TimedSecretOptions<'signingKey'> & {
  /** The destination URL QStash posts to, as published to it: the JWT's `sub` must equal it. */
  url: string;
};

/** A QStash message: its body is whatever the publisher sent, so the preset reads nothing of it. */
export type QStashMinimalEvents = Record<string, unknown>;

/**
 * Upstash QStash preset (messages, schedules and URL groups delivered to your endpoint).
 *
 * - **Key**: `Upstash-Message-Id`, the message's id, the same on each retry. Not signed: the
 *   JWT binds the body and the URL, not the id.
 * - **Signature**: `Upstash-Signature` is a JWT, HS256 only, signed with the current or the next
 *   signing key (its UTF-8 bytes); its `iss` must be `Upstash`, its `sub` the `url` option, its
 *   `body` the base64url SHA-256 of the raw body; `iat` within `toleranceSeconds` of the clock,
 *   both ways, `exp` and `nbf` with the same skew.
 * - **Retention**: 30 days: retries follow the plan's count with delays up to a day each, and a
 *   message in the dead-letter queue can be republished.
 *
 * @example
 * const preset = providers.qstash({
 *   signingKey: [process.env.QSTASH_CURRENT_SIGNING_KEY!, process.env.QSTASH_NEXT_SIGNING_KEY!],
 *   url: 'https://example.com/api/qstash',
 * });
 * @throws {ConfigError} naming `signingKey`, `url`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#upstash-qstash
 */
export const qstash: PresetFactory<QStashOptions, QStashMinimalEvents> =
  /* @__PURE__ */ timedMember<QStashOptions, Buffer, KeyedRow<Buffer>>({
    provider: 'qstash',
    secret: ['signingKey', 'the current and next signing keys'],
    toleranceSeconds: 300,
    toKey: (key) => Buffer.from(key, 'utf8'),
    family: keyedPreset,
    row: (options, { now, tolerance }) => {
      const url = requireString('qstash', 'url', options.url, 'the endpoint URL QStash calls');
      const claimsHold = (claims: Readonly<Record<string, unknown>>, request: HttpRequest) =>
        stringClaim(claims, 'iss') === 'Upstash' &&
        stringClaim(claims, 'sub') === url &&
        bodyDigestClaim(claims.body, request.rawBody, 'base64url');
      return {
        keyDescription: 'Upstash-Message-Id header',
        needsRawBody: true,
        retentionDays: 30,
        id: /* @__PURE__ */ headerId('upstash-message-id'),
        signedWith: tokenMatch<Buffer>({
          token: (request) => header(request, 'upstash-signature'),
          algorithms: ['HS256'],
          time: { now, tolerance, required: ['iat', 'exp'], maxAgeSeconds: 0 },
          claims: claimsHold,
        }),
        eventType: () => undefined,
      };
    },
  });
