/**
 * @module Mercado Pago preset: the signed `data.id` and `x-request-id` as the key, `x-signature:
 * ts=…,v1=…` (hex HMAC-SHA256 of the manifest `id:…;request-id:…;ts:…;`) under the secret signature.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { requireOptions } from './options';
import { header, idPart, jsonBody } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hmacMatches } from './signature';

/**
 * Options of {@link mercadopago}: `secret`, the application's secret signature (Your
 * integrations, Webhooks), or several; or `resolveSecret`, a lookup per request.
 */
export type MercadoPagoOptions = SecretOptions<'secret', string>;

/**
 * A Mercado Pago notification as this preset reads it: its `type` (`payment`…), the event name.
 * The body is not signed (only `data.id` and `x-request-id` are): fetch the resource it names.
 */
export interface MercadoPagoMinimalEvent {
  readonly type: string;
}

/** Mercado Pago's notification types: any name, each a {@link MercadoPagoMinimalEvent}. */
export type MercadoPagoMinimalEvents = Record<string, MercadoPagoMinimalEvent>;

const DIGITS = /^\d+$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** The `data.id` query parameter, trimmed; `undefined` when absent or empty. */
function dataId(request: HttpRequest): string | undefined {
  const query = request.url.indexOf('?');
  if (query === -1) return undefined;
  const value = new URLSearchParams(request.url.slice(query + 1).split('#')[0]).get('data.id');
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The `x-request-id` header, trimmed; `undefined` when absent or empty. */
function requestId(request: HttpRequest): string | undefined {
  const value = header(request, 'x-request-id')?.trim();
  return value ? value : undefined;
}

/** `ts` and the `v1` hashes of an `x-signature` header (`ts=…,v1=…`, any order, spaces allowed). */
function parseSignature(text: string): { ts: string | undefined; v1: string[] } {
  let ts: string | undefined;
  const v1: string[] = [];
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (name === 'ts') ts = value;
    else if (name === 'v1' && HEX_SHA256.test(value)) v1.push(value);
  }
  return { ts, v1 };
}

/** The signed manifest; a part whose value is missing is left out, as Mercado Pago documents. */
function manifest(id: string | undefined, request: string | undefined, ts: string): string {
  return `${id === undefined ? '' : `id:${id};`}${request === undefined ? '' : `request-id:${request};`}ts:${ts};`;
}

/**
 * Mercado Pago webhook preset (payments, orders, subscriptions, chargebacks… configured in Your
 * integrations).
 *
 * - **Key**: `data.id` from the query string and the `x-request-id` header (`{data.id}:{x-request-id}`),
 *   the two request values the signature covers. The body is **not** signed, so the preset takes
 *   nothing from it; whether a retry repeats `x-request-id` is UNCONFIRMED (when it does not, each
 *   retry runs the handler again, as without the guard): fetch the resource by `data.id` and apply
 *   its current state, as Mercado Pago advises.
 * - **Signature**: `x-signature: ts=…,v1=…`, `v1` the hex HMAC-SHA256 under the secret signature of
 *   `id:{data.id};request-id:{x-request-id};ts:{ts};`, a part left out when its value is missing.
 *   An alphanumeric `data.id` is signed lower-cased (Mercado Pago's docs; UNCONFIRMED here), so the
 *   lower-cased manifest is tried first, then the id as received (what the SDKs sign).
 * - **Retention**: 30 days: Mercado Pago retries every 15 minutes, then at longer intervals without
 *   a published end (its older schedule ran 4 days).
 *
 * No timestamp window is enforced: Mercado Pago's own pages and SDKs disagree on whether `ts` is in
 * seconds or milliseconds. QR Code notifications are not signed and cannot pass this preset.
 *
 * @example
 * const preset = providers.mercadopago({ secret: process.env.MP_WEBHOOK_SECRET! });
 * @throws {ConfigError} naming `secret` when invalid.
 * @see docs/providers.md#mercado-pago
 */
export function mercadopago<Events extends object = MercadoPagoMinimalEvents>(
  options: MercadoPagoOptions,
): TypedPreset<Events> {
  requireOptions('mercadopago', options);
  const ring = stringKeyring('mercadopago', options, 'secret', 'the secret signature');

  return keyedPreset<Events, string>(ring, {
    provider: 'mercadopago',
    keyDescription: 'x-request-id header (with the data.id query parameter)',
    needsRawBody: false,
    retentionDays: 30,
    id(request) {
      const id = dataId(request);
      const request_ = requestId(request);
      if (request_ === undefined) return undefined;
      return id === undefined ? request_ : `${id}:${request_}`;
    },
    signedWith(r, keys) {
      const manifests = manifestsOf(r);
      if (manifests === undefined) return undefined;
      return firstMatch(keys, (key) =>
        manifests.texts.some((text) => hmacMatches(key, [text], manifests.v1, 'hex')),
      );
    },
    eventType: (request) => idPart(jsonBody(request)?.type),
  });
}

/** The manifests a request's signature may cover, and its `v1` hashes; `undefined` when it has none. */
function manifestsOf(request: HttpRequest) {
  const signature = header(request, 'x-signature');
  if (signature === undefined) return undefined;
  const { ts, v1 } = parseSignature(signature);
  if (ts === undefined || !DIGITS.test(ts) || v1.length === 0) return undefined;
  const id = dataId(request);
  const rid = requestId(request);
  const lower = id?.toLowerCase();
  const texts = [manifest(lower, rid, ts)];
  if (id !== lower) texts.push(manifest(id, rid, ts));
  return { texts, v1 };
}
