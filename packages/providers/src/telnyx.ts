/**
 * @module Telnyx preset: the event's `data.id` as the key, `telnyx-signature-ed25519` verified with
 * the account's public key over `telnyx-timestamp`, a `|` and the raw body.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import type { Named, PresetFactory } from './events';
import { objectFingerprint } from './fingerprint';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { timedMember } from './keyring-members';
import { idPart, isJsonObject, jsonBody } from './request-fields';
import type { TimedSecretOptions } from './secrets';
import { stampedSignatureMatch } from './stamped-signature';

/**
 * Options of {@link telnyx}: `publicKey`, the account's public key as Mission Control shows it
 * (base64 of the 32 raw Ed25519 bytes), or several; or `resolveSecret`, a lookup per request.
 *
 * `toleranceSeconds`: accepted distance between `telnyx-timestamp` and now, in seconds. Defaults
 * to 300, as Telnyx's SDK.
 */
export type TelnyxOptions = TimedSecretOptions<'publicKey'>;

/** A Telnyx event as this preset reads it: `data.id` (the key) and `data.event_type` (the event name). */
export interface TelnyxMinimalEvent {
  readonly data: Named<'id' | 'event_type'>;
}

/** Telnyx's events by name (`message.received`), each a {@link TelnyxMinimalEvent}. */
export type TelnyxMinimalEvents = Record<string, TelnyxMinimalEvent>;

/** DER prefix of an Ed25519 SubjectPublicKeyInfo, before the 32 raw key bytes (RFC 8410). */
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;
/** 64 signature bytes in padded base64. */
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;

/** The Ed25519 key of the account's public key, given as base64 of its 32 bytes. */
function publicKeyOf(base64: string): KeyObject {
  if (!BASE64_KEY.test(base64))
    throw new ConfigError(
      'publicKey',
      'telnyx() needs the public key as Mission Control shows it: base64 of 32 bytes',
    );
  const raw = Buffer.from(base64, 'base64');
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI, raw]), format: 'der', type: 'spki' });
}

/** The `data` object of a Telnyx event body. */
function eventData(request: Parameters<typeof jsonBody>[0]) {
  const data = jsonBody(request)?.data;
  return isJsonObject(data) ? data : undefined;
}

/** The fingerprint of an event without its delivery bookkeeping (`meta`: the attempt, the URL delivered to), which a retry changes. */
const eventFingerprint = /* @__PURE__ */ objectFingerprint(jsonBody, 'meta');

/**
 * Telnyx preset (Call Control, Messaging, Fax, Numbers… webhooks, API v2).
 *
 * - **Key**: the event's `data.id`, which Telnyx documents as the event's unique identifier; a
 *   delivery to the failover URL carries the same event.
 * - **Fingerprint**: the body without `meta`, which a retry changes (`meta.attempt`, and
 *   `meta.delivered_to` when it goes to the failover URL).
 * - **Signature**: `telnyx-signature-ed25519` is the base64 Ed25519 signature of
 *   `telnyx-timestamp`, `|` and the raw body, checked with the account's public key; the
 *   timestamp must be within `toleranceSeconds` of the clock, both ways.
 * - **Retention**: 7 days: Telnyx documents a retry to the failover URL, not its window.
 *
 * @example
 * const preset = providers.telnyx({ publicKey: process.env.TELNYX_PUBLIC_KEY! });
 * @throws {ConfigError} naming `publicKey`, `toleranceSeconds` or `clock` when invalid.
 * @see docs/providers.md#telnyx
 */
export const telnyx: PresetFactory<TelnyxOptions, TelnyxMinimalEvents> =
  /* @__PURE__ */ timedMember<TelnyxOptions, KeyObject, KeyedRow<KeyObject>>({
    provider: 'telnyx',
    secret: ['publicKey', 'the account public key'],
    toleranceSeconds: 300,
    toKey: publicKeyOf,
    family: keyedPreset,
    row: (_, { now, tolerance }) => ({
      keyDescription: 'data.id in the body',
      needsRawBody: true,
      retentionDays: 7,
      fingerprint: eventFingerprint,
      id: (request) => idPart(eventData(request)?.id),
      signedWith: stampedSignatureMatch({
        header: 'telnyx-signature-ed25519',
        stampHeader: 'telnyx-timestamp',
        separator: '|',
        encoding: 'base64',
        pattern: BASE64_SIGNATURE,
        algorithm: null,
        now,
        tolerance,
      }),
      eventType: (request) => idPart(eventData(request)?.event_type),
    }),
  });
