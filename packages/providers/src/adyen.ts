/**
 * @module Adyen standard webhooks preset: `notificationItems[].NotificationRequestItem`, each keyed
 * on `pspReference:eventCode:success` and each signed with its own HMAC in
 * `additionalData.hmacSignature`; the whole request is refused when any item's signature is wrong.
 */
import { ConfigError } from '@webhook-idempotency/core';
import { basicAuthChecker } from './basic-auth';
import { batchedPreset } from './batched';
import type { PresetFactory } from './events';
import { requireOptions, requireString } from './options';
import {
  header,
  idPart,
  isJsonObject,
  joinedId,
  jsonBody,
  type JsonObject,
} from './request-fields';
import { firstMatch, listOf, type OneOrMany, type SecretOptions, stringKeyring } from './secrets';
import { hmacMatches } from './signature';

/**
 * Options of {@link adyen}: `hmacKey`, the webhook's HMAC key as the Customer Area shows it (hex),
 * or both while Adyen rotates it; or `resolveSecret`, a lookup per request (one merchant account
 * per customer).
 */
export type AdyenOptions = SecretOptions<'hmacKey', string> & {
  /**
   * The username and password set on the webhook in the Customer Area, when you set them (or
   * several pairs while you change them): the request must then carry one of them as HTTP Basic
   * credentials too. Optional.
   */
  basicAuth?: OneOrMany<{ username: string; password: string }>;
};

/** One Adyen `NotificationRequestItem` as this preset reads it: its key fields and `eventCode` (the event name). */
export interface AdyenMinimalItem {
  readonly pspReference: string;
  readonly eventCode: string;
  readonly success: string;
}

/** Adyen's event codes: any name, each an {@link AdyenMinimalItem}. */
export type AdyenMinimalEvents = Record<string, AdyenMinimalItem>;

/** The HMAC key's bytes, from the hex the Customer Area shows. */
function hmacKeyBytes(text: string): Buffer {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text))
    throw new ConfigError(
      'hmacKey',
      'adyen() needs the HMAC key as the hex the Customer Area shows',
    );
  return Buffer.from(text, 'hex');
}

/** A check of the `basicAuth` pairs (any one), or `undefined` without them. */
function credentialsCheck(basicAuth: unknown) {
  if (basicAuth === undefined) return undefined;
  const pairs = listOf(basicAuth as OneOrMany<unknown>);
  if (pairs.length === 0 || !pairs.every(isJsonObject))
    throw new ConfigError('basicAuth', 'adyen() needs basicAuth as { username, password }');
  const checks = pairs.map((pair) =>
    basicAuthChecker(
      'adyen',
      'basicAuth',
      requireString('adyen', 'basicAuth', pair.username, 'basicAuth.username'),
      requireString('adyen', 'basicAuth', pair.password, 'basicAuth.password'),
    ),
  );
  return (authorization: string | undefined) =>
    firstMatch(checks, (check) => check(authorization)) !== undefined;
}

/** The `NotificationRequestItem` of each of the body's `notificationItems`; `undefined` unless every one is an object. */
function notificationItems(body: JsonObject | undefined): JsonObject[] | undefined {
  const list = body?.notificationItems;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const items = list.map((entry) =>
    isJsonObject(entry) && isJsonObject(entry.NotificationRequestItem)
      ? entry.NotificationRequestItem
      : undefined,
  );
  return items.every((item) => item !== undefined) ? (items as JsonObject[]) : undefined;
}

/** A signed field as Adyen writes it: a string or a number as is, anything missing as empty. */
const field = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

/**
 * What Adyen signs for a payments webhook item: `pspReference:originalReference:
 * merchantAccountCode:merchantReference:value:currency:eventCode:success`.
 */
function signedFields(item: JsonObject): string {
  const amount = isJsonObject(item.amount) ? item.amount : {};
  return [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    amount.value,
    amount.currency,
    item.eventCode,
    item.success,
  ]
    .map(field)
    .join(':');
}

/** The item's key: its payment (or modification) reference, event and outcome. */
function itemKey(item: JsonObject): string | undefined {
  return joinedId([item.pspReference, item.eventCode, item.success]);
}

/**
 * Adyen standard webhooks preset (AUTHORISATION, CAPTURE, REFUND, CANCELLATION, CHARGEBACK… of the
 * payments platform).
 *
 * - **Batched**: the body's `notificationItems` each carry a `NotificationRequestItem`, an item with
 *   its own receipt keyed `pspReference:eventCode:success` (`pspReference` is globally unique; with
 *   `success`, a refused and a later successful event of one reference stay apart). Run them with
 *   `idempotency.batch.each` and answer **`[accepted]`** with status 200.
 * - **Signature**: each item's `additionalData.hmacSignature` is base64 HMAC-SHA256, under the
 *   hex-decoded HMAC key, of its `pspReference`, `originalReference`, `merchantAccountCode`,
 *   `merchantReference`, amount `value` and `currency`, `eventCode` and `success` joined by `:`. A
 *   request with any item unsigned or wrongly signed is refused (401) as a whole. The signature
 *   covers those fields only, not the rest of the item (`additionalData`, `reason`…): set
 *   `basicAuth` as well to authenticate the whole request.
 * - **Retention**: 45 days. Adyen retries an unacknowledged batch (10 s timeout) three times, then
 *   from a queue for up to 30 days.
 *
 * @example
 * const preset = providers.adyen({ hmacKey: process.env.ADYEN_HMAC_KEY! });
 * @throws {ConfigError} naming `hmacKey` or `basicAuth` when invalid.
 * @see docs/providers.md#adyen
 */
export const adyen: PresetFactory<AdyenOptions, AdyenMinimalEvents> = (options) => {
  const { basicAuth } = requireOptions('adyen', options);
  const ring = stringKeyring('adyen', options, 'hmacKey', 'the webhook HMAC key', {
    toKey: hmacKeyBytes,
  });
  const credentials = credentialsCheck(basicAuth);

  return batchedPreset(ring, {
    provider: 'adyen',
    keyDescription: 'pspReference, eventCode and success of each NotificationRequestItem',
    // The HMAC covers parsed fields, not the raw bytes: a JSON body parser may run first.
    needsRawBody: false,
    retentionDays: 45,
    items: (request) => notificationItems(jsonBody(request)),
    item: (item) => ({ id: itemKey(item) }),
    signedWith(r, keys) {
      if (credentials && !credentials(header(r, 'authorization'))) return undefined;
      const items = notificationItems(jsonBody(r));
      if (!items) return undefined;
      return firstMatch(keys, (key) => items.every((item) => itemSigned(item, key)));
    },
    itemType: (item) => (isJsonObject(item) ? idPart(item.eventCode) : undefined),
  });
};

/** True when the item's `additionalData.hmacSignature` is its HMAC under `key`. */
function itemSigned(item: JsonObject, key: Buffer): boolean {
  const extra = isJsonObject(item.additionalData) ? item.additionalData : {};
  const signature = extra.hmacSignature;
  if (typeof signature !== 'string') return false;
  return hmacMatches(key, [signedFields(item)], [signature], 'base64');
}
