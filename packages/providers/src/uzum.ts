/** @module Uzum Bank Merchant API preset: JSON webhooks on /check /create /confirm /reverse /status, HTTP Basic auth. */
import type { HttpRequest } from '@webhook-idempotency/core';
import { type BasicAuthOptions, basicAuthPreset, credentialsKeyring } from './basic-auth';
import type { TypedPreset } from './events';
import { canonicalFingerprint } from './fingerprint';
import { idPart, jsonBody, lastPathSegment } from './request-fields';

/**
 * Options of {@link uzum}: the Basic-auth `username` and `password` Uzum Bank issued; or
 * `credentials`, several such pairs while they change (any one passes); or `resolveSecret`, a
 * lookup per request.
 */
export type UzumOptions = BasicAuthOptions;

/** An Uzum request as this preset reads it: `serviceId` and `transId`; the operation (the event name) is the path's last segment. */
export interface UzumMinimalRequest {
  readonly serviceId: number | string;
  readonly transId: string;
}

/** Uzum's operations, each an {@link UzumMinimalRequest}. */
export type UzumMinimalEvents = Record<
  'check' | 'create' | 'confirm' | 'reverse' | 'status',
  UzumMinimalRequest
>;

/** Operations that change state: each is deduplicated on its own. */
const MUTATING: ReadonlySet<string> = new Set(['create', 'confirm', 'reverse']);
/** Queries: `/status` is Uzum's own recovery path after a timeout, so it must always see the current state. */
const READ_ONLY: ReadonlySet<string> = new Set(['check', 'status']);

function operation(request: HttpRequest): string {
  return lastPathSegment(request.url).toLowerCase();
}

/** `serviceId:transId:operation`; `undefined` for an unknown operation or a missing field. */
function uzumKey(request: HttpRequest): string | undefined {
  const op = operation(request);
  if (!MUTATING.has(op)) return undefined;
  const body = jsonBody(request);
  const serviceId = idPart(body?.serviceId);
  const transId = idPart(body?.transId);
  return serviceId !== undefined && transId !== undefined
    ? `${serviceId}:${transId}:${op}`
    : undefined;
}

/**
 * Uzum Bank Merchant API preset (docs/providers.md#uzum). The operation is the last segment of the
 * request path, so mount the five webhooks as `…/check`, `…/create`, `…/confirm`, `…/reverse`,
 * `…/status` (any prefix).
 *
 * - **Key**: `serviceId:transId:operation` (`498:9b7c…:confirm`). Create, confirm and reverse of one
 *   payment share `transId`, so the operation is part of the key.
 * - **Pass-through**: `/check` and `/status`. Uzum answers a partner timeout by polling `/status`
 *   (up to 10 times), so `/status` must report the live state, never a stored answer.
 * - **Auth**: HTTP Basic with the credentials Uzum issued, constant time. A failure keeps the
 *   default 401: what Uzum expects for bad credentials is UNCONFIRMED.
 * - **Fingerprint**: the JSON body without its `timestamp` field, plus the operation: whether a
 *   retry carries a fresh `timestamp` is UNCONFIRMED (the full field list is not in the stored docs).
 * - **In progress**: the default 409. A non-200 makes Uzum poll `/status`, which passes through
 *   to the handler and reports the real state: exactly the recovery path Uzum designed.
 * - **Retention**: 3650 days. The receipt mirrors the payment record, which is kept permanently.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.uzum({ username: process.env.UZUM_LOGIN!, password: process.env.UZUM_PASSWORD! });
 * preset.key(request); // '498:3f0e0f6e-8a51-4a55-9a55-2f0a1c7e2b11:create' for POST /uzum/create
 * @throws {ConfigError} naming `username` or `password` when missing or not a non-empty string.
 * @see docs/providers.md#uzum
 */
export function uzum<Events extends object = UzumMinimalEvents>(
  options: UzumOptions,
): TypedPreset<Events> {
  return basicAuthPreset<Events>(credentialsKeyring('uzum', options), {
    provider: 'uzum',
    keyDescription: 'serviceId and transId with a create, confirm or reverse path',
    retentionDays: 3650,
    id: uzumKey,
    passThrough(request) {
      return READ_ONLY.has(operation(request));
    },
    fingerprint(request) {
      const body = jsonBody(request);
      if (!body) return undefined;
      const { timestamp: _ignored, ...rest } = body;
      return canonicalFingerprint({ operation: operation(request), body: rest });
    },
    eventType: operation,
  });
}
