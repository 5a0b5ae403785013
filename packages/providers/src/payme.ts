/** @module Payme (Paycom) Merchant API preset: JSON-RPC over HTTP Basic, always answered with HTTP 200. */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import { basicAuthChecker, basicAuthPreset } from './basic-auth';
import type { TypedPreset } from './events';
import { canonicalFingerprint } from './fingerprint';
import { optionalString, requireOptions } from './options';
import { idPart, isJsonObject, jsonBody, parseJsonObject } from './request-fields';
import { jsonText, withBody } from './response';
import { type SecretOptions, stringKeyring } from './secrets';

/**
 * Options of {@link payme}: `password`, the cash-desk key Payme issued (36 characters, the
 * Basic-auth password), or the old and new key while ChangePassword takes effect; or
 * `resolveSecret`, a lookup per request (one cash desk per customer).
 */
export type PaymeOptions = SecretOptions<'password', string> & {
  /** The Basic-auth login. Defaults to `'Paycom'`. */
  login?: string;
};

/** A Payme JSON-RPC call as this preset reads it: `method` (the event name), `params.id` and the call's `id`. */
export interface PaymeMinimalCall {
  readonly method: string;
  readonly params: { readonly id?: string };
  readonly id: number | string | null;
}

/** Payme's methods: any name, each a {@link PaymeMinimalCall}. */
export type PaymeMinimalEvents = Record<string, PaymeMinimalCall>;

/**
 * Methods that are never deduplicated. The first three are queries and must report the current
 * state on every call (docs/providers.md#payme). ChangePassword carries no transaction id and is
 * naturally idempotent (setting the same key twice changes nothing); it is not in the stored
 * Payme docs (UNCONFIRMED), but a Java template implements it, so it must not be refused.
 */
const PASS_THROUGH: ReadonlySet<string> = new Set([
  'CheckPerformTransaction',
  'CheckTransaction',
  'GetStatement',
  'ChangePassword',
]);

/** JSON-RPC error messages are shown to the payer, so they come in Payme's three languages. */
const INSUFFICIENT_PRIVILEGE = {
  ru: 'Недостаточно привилегий для выполнения метода',
  uz: 'Metodni bajarish uchun huquqlar yetarli emas',
  en: 'Insufficient privileges to perform the method',
};
const SYSTEM_ERROR_IN_PROGRESS = {
  ru: 'Системная ошибка: запрос уже обрабатывается, повторите позже',
  uz: "Tizim xatosi: so'rov allaqachon bajarilmoqda, keyinroq qayta urinib ko'ring",
  en: 'System error: this request is already being processed, retry later',
};

/** The current request's JSON-RPC `id` as JSON text (`null` when it has none or the body is unreadable). */
function rpcIdText(request: HttpRequest): string {
  const rpc = jsonBody(request);
  return rpc && 'id' in rpc ? (JSON.stringify(rpc.id) ?? 'null') : 'null';
}

function rpcError(request: HttpRequest, code: number, message: object): HttpResponseRecord {
  return jsonText(
    200,
    `{"error":{"code":${code},"message":${JSON.stringify(message)}},"id":${rpcIdText(request)}}`,
  );
}

/** `method:params.id`, plus `:params.type` for SetFiscalData; `undefined` without them. */
function paymeKey(request: HttpRequest): string | undefined {
  const rpc = jsonBody(request);
  const method = rpc?.method;
  const params = rpc?.params;
  if (typeof method !== 'string' || method === '' || !isJsonObject(params)) return undefined;
  const id = params.id;
  if (typeof id !== 'string' || id === '') return undefined;
  if (method !== 'SetFiscalData') return `${method}:${id}`;
  // One fiscal receipt id arrives twice, once with type PERFORM and once with CANCEL.
  const type = params.type;
  return typeof type === 'string' && type !== '' ? `${method}:${id}:${type}` : undefined;
}

/** The stored answer with its JSON-RPC `id` replaced by the current request's (as it is when that cannot be done). */
function withCurrentId(stored: HttpResponseRecord, request: HttpRequest): HttpResponseRecord {
  const current = jsonBody(request);
  if (!current || !('id' in current)) return stored;
  const answer = parseJsonObject(stored.body.toString('utf8'));
  if (answer === undefined) return stored;
  const id = current.id ?? null;
  if (JSON.stringify(answer.id ?? null) === JSON.stringify(id)) return stored;
  return withBody(stored, Buffer.from(JSON.stringify({ ...answer, id }), 'utf8'));
}

/** Queries and ChangePassword, and any call without a usable key: the handler answers them every time. */
function passesThrough(request: HttpRequest): boolean {
  const method = jsonBody(request)?.method;
  return (
    (typeof method === 'string' && PASS_THROUGH.has(method)) || paymeKey(request) === undefined
  );
}

/**
 * Payme Merchant API preset (JSON-RPC 2.0, HTTP Basic auth, docs/providers.md#payme).
 *
 * - **Key**: `method:params.id` (`CreateTransaction:5e730e8e0b852a417aa49ceb`); SetFiscalData adds
 *   `:params.type`. Payme's transaction methods all carry the same `params.id`, so the id alone
 *   would make PerformTransaction look like a duplicate of CreateTransaction.
 * - **Pass-through**: CheckPerformTransaction, CheckTransaction, GetStatement, ChangePassword, and
 *   any request without a usable key (no `method`, no `params.id`, unparseable JSON). Payme wants
 *   HTTP 200 with a JSON-RPC error (-32700, -32600, -32601) for those, which only the handler can
 *   give; a request without an id cannot be deduplicated anyway.
 * - **Fingerprint**: SHA-256 of the canonical JSON of `{ method, params }`: the JSON-RPC `id` is
 *   left out because whether it stays the same across Payme's retries is UNCONFIRMED.
 * - **Replay**: the stored answer with its `id` replaced by the current request's `id`.
 * - **Auth**: `Authorization: Basic base64(login:password)`, compared in constant time; a failure
 *   is answered HTTP 200 with JSON-RPC error -32504 (insufficient privileges), as Payme documents.
 * - **In progress**: HTTP 200 with JSON-RPC error -32400 (system error). Payme treats *any*
 *   non-200 answer as -32400, so this says the same thing in protocol; it is not a business
 *   error (such as -31008), which could make Payme cancel the transaction. Whether Payme re-sends
 *   after -32400 and on what schedule is UNCONFIRMED; its documented 12-hour auto-cancel of an
 *   unperformed transaction bounds the damage.
 * - **Retention**: 3650 days. Payme transactions are business records that GetStatement must be
 *   able to list for reconciliation; a short-lived receipt store is the wrong tool here, so
 *   receipts are kept for ten years (effectively permanent) unless you purge them yourself.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.payme({ password: process.env.PAYME_CASH_DESK_KEY! });
 * preset.key(request); // 'CreateTransaction:5e730e8e0b852a417aa49ceb'
 * @throws {ConfigError} naming `password` or `login` when missing or not a non-empty string.
 * @see docs/providers.md#payme
 */
export function payme<Events extends object = PaymeMinimalEvents>(
  options: PaymeOptions,
): TypedPreset<Events> {
  const { login } = requireOptions('payme', options);
  const user = optionalString('payme', 'login', login, 'Paycom');
  const ring = stringKeyring('payme', options, 'password', 'the cash-desk key', {
    toKey: (pass) => basicAuthChecker('payme', 'login', user, pass),
  });

  return basicAuthPreset<Events>(ring, {
    provider: 'payme',
    keyDescription: 'JSON-RPC method and params.id',
    retentionDays: 3650,
    id: paymeKey,
    passThrough: passesThrough,
    fingerprint(request) {
      const rpc = jsonBody(request);
      return rpc ? canonicalFingerprint({ method: rpc.method, params: rpc.params }) : undefined;
    },
    replay: withCurrentId,
    inProgress(request) {
      return rpcError(request, -32400, SYSTEM_ERROR_IN_PROGRESS);
    },
    unauthorized(request) {
      return rpcError(request, -32504, INSUFFICIENT_PRIVILEGE);
    },
    eventType: (request) => idPart(jsonBody(request)?.method),
  });
}
