/**
 * @module Cloudinary preset: notifications signed with a plain SHA-1 (or SHA-256) hash of the raw
 * body, the `X-Cld-Timestamp` value and the API secret appended to it; no delivery id, so the key
 * is the notification's type and the digest of its bytes.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import { sha256Hex } from '@webhook-idempotency/core/adapter';
import type { Named, PresetFactory } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { timedMember } from './keyring-members';
import { oneOf } from './options';
import { header, idPart, jsonBody } from './request-fields';
import { firstMatch, type TimedSecretOptions } from './secrets';
import { hexEquals, isFresh, parseUnixSeconds } from './signature';

/**
 * Options of {@link cloudinary}: `apiSecret`, the product environment's API secret (the one of the
 * key dedicated to webhook notifications, else the oldest active key), or several while you
 * change it; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: how far `X-Cld-Timestamp` may be from now, either way, in seconds. Defaults
 * to 7200 (the SDK's two hours).
 */
export type CloudinaryOptions = TimedSecretOptions<'apiSecret'> & {
  /** The digest Cloudinary signs with: `'sha1'` (what its SDKs use by default) or `'sha256'`. Defaults to `'sha1'`. */
  signatureAlgorithm?: 'sha1' | 'sha256';
};

/** A notification as this preset reads it: its `notification_type` (`upload`, `delete`, `rename`…). */
export type CloudinaryMinimalNotification = Named<'notification_type'>;

/** Cloudinary's notification types: any name, each a {@link CloudinaryMinimalNotification}. */
export type CloudinaryMinimalEvents = Record<string, CloudinaryMinimalNotification>;

/** True when `given` is the hex digest of `body + timestamp + secret` under `algorithm`. */
function plainHashMatches(
  algorithm: 'sha1' | 'sha256',
  body: Buffer,
  timestamp: string,
  secret: string,
  given: string,
): boolean {
  const digest = createHash(algorithm).update(body).update(timestamp).update(secret).digest();
  return hexEquals(given, digest);
}

/** `notification_type:<SHA-256 of the raw body>`: the fallback key of a provider with no delivery id. */
function notificationKey(request: HttpRequest): string | undefined {
  const type = idPart(jsonBody(request)?.notification_type);
  const { rawBody } = request;
  if (type === undefined || rawBody === undefined) return undefined;
  return `${type}:${sha256Hex(rawBody)}`;
}

/**
 * Cloudinary preset (upload, eager, delete, rename, moderation and other notifications sent to a
 * `notification_url`).
 *
 * - **Key**: `notification_type:<SHA-256 of the raw body>`, a fallback: Cloudinary gives a
 *   notification no id of its own. A re-send of the same bytes is one receipt; two notifications
 *   with identical bodies would merge, and a retry whose body changed would run again.
 * - **Signature**: `X-Cld-Signature` = hex SHA-1 (or SHA-256, `signatureAlgorithm`) of
 *   `rawBody + X-Cld-Timestamp + apiSecret`: a plain hash with the secret appended, not an HMAC;
 *   compared in constant time. The timestamp must be within `toleranceSeconds` of now, either way.
 * - **Retention**: 7 days (Cloudinary's retry schedule is UNCONFIRMED).
 *
 * @example
 * const preset = providers.cloudinary({ apiSecret: process.env.CLOUDINARY_API_SECRET! });
 * @throws {ConfigError} naming `apiSecret`, `resolveSecret`, `signatureAlgorithm`,
 *   `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#cloudinary
 */
export const cloudinary: PresetFactory<CloudinaryOptions, CloudinaryMinimalEvents> =
  /* @__PURE__ */ timedMember<CloudinaryOptions, string, KeyedRow<string>>({
    provider: 'cloudinary',
    secret: ['apiSecret', 'the API secret'],
    toleranceSeconds: 7200,
    family: keyedPreset,
    row: (options, { now, tolerance }) => {
      const algorithm = oneOf(
        'cloudinary',
        'signatureAlgorithm',
        options.signatureAlgorithm,
        ['sha1', 'sha256'],
        'sha1',
      );
      return {
        keyDescription: 'notification_type and the SHA-256 of the body (Cloudinary sends no id)',
        needsRawBody: true,
        retentionDays: 7,
        id: notificationKey,
        signedWith(r, secrets) {
          const given = header(r, 'x-cld-signature');
          const stamp = header(r, 'x-cld-timestamp');
          const sent = parseUnixSeconds(stamp);
          const { rawBody } = r;
          if (rawBody === undefined || given === undefined || stamp === undefined) return undefined;
          if (sent === undefined || !isFresh(sent, now(), tolerance)) return undefined;
          return firstMatch(secrets, (secret) =>
            plainHashMatches(algorithm, rawBody, stamp, secret, given),
          );
        },
        eventType: (request) => {
          const type = jsonBody(request)?.notification_type;
          return typeof type === 'string' ? type : undefined;
        },
      };
    },
  });
