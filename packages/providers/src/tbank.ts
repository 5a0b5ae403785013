/**
 * @module T-Bank (Tinkoff) acquiring preset: HTTP(S) notifications whose `Token` is the SHA-256 of
 * the root fields' values sorted by name, the terminal password added as `Password`; answered
 * with the text `OK`.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { objectFingerprint } from './fingerprint';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { secretMember } from './keyring-members';
import { idPart, type JsonObject, jsonBody, joinedId } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hexEquals } from './signature';
import { inProgressText, refusedText } from './text-protocol';

/**
 * Options of {@link tbank}: `password`, the terminal's password from the acquiring account, or
 * several while you change it; or `resolveSecret`, a lookup per request (one terminal per
 * customer: by `TerminalKey`).
 */
export type TBankOptions = SecretOptions<'password', string>;

/** A notification as this preset reads it (the root fields it keys on and signs). */
export interface TBankMinimalNotification {
  readonly TerminalKey: string;
  readonly OrderId: string;
  readonly Success: boolean;
  readonly Status: string;
  readonly PaymentId: number | string;
  readonly ErrorCode: string;
  readonly Amount: number;
  readonly Token: string;
}

/** T-Bank's payment statuses (`AUTHORIZED`, `CONFIRMED`, `REFUNDED`…): each a {@link TBankMinimalNotification}. */
export type TBankMinimalEvents = Record<string, TBankMinimalNotification>;

/**
 * The token's text of one root value: strings as they are, numbers and booleans as JSON spells
 * them (`true`); `undefined` for what the token leaves out (nested objects, arrays, null).
 */
function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** SHA-256 of the root values sorted by name, `Password` among them and `Token` left out. */
function tokenOf(body: JsonObject, password: string): Buffer {
  const fields: Array<[string, string]> = [['Password', password]];
  for (const [name, value] of Object.entries(body)) {
    const text = name === 'Token' || name === 'Password' ? undefined : tokenText(value);
    if (text !== undefined) fields.push([name, text]);
  }
  fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256');
  for (const [, text] of fields) hash.update(text, 'utf8');
  return hash.digest();
}

/** `PaymentId:Status:Amount`: a notification per status change of a payment. */
function notificationKey(request: HttpRequest): string | undefined {
  const body = jsonBody(request);
  return body ? joinedId([body.PaymentId, body.Status, body.Amount]) : undefined;
}

/**
 * T-Bank acquiring preset (the notifications sent to `NotificationURL`).
 *
 * - **Key**: `PaymentId:Status:Amount`. T-Bank notifies each status change of a payment
 *   (`AUTHORIZED`, `CONFIRMED`, `PARTIAL_REFUNDED`…) and gives a notification no id of its own;
 *   the amount keeps two partial refunds of different sums apart.
 * - **Signature**: `Token` = hex SHA-256 of the values of the root fields, sorted by name, with
 *   `Password` (the terminal password) added and `Token` left out; nested objects and arrays
 *   (`Data`, `Receipt`) are not signed. Numbers and booleans as JSON spells them. Compared in
 *   constant time.
 * - **Answers**: your handler answers `OK` (status 200, plain text): T-Bank sends the
 *   notification again otherwise. The preset's refusal (401) and in-progress answer (409,
 *   `Retry-After`) are plain text, never `OK`.
 * - **Fingerprint**: the parsed root object, whatever its spacing.
 * - **Retention**: 30 days (payment notifications; the retry schedule is UNCONFIRMED).
 *
 * @example
 * const preset = providers.tbank({ password: process.env.TBANK_TERMINAL_PASSWORD! });
 * @throws {ConfigError} naming `password` or `resolveSecret` when invalid.
 * @see docs/providers.md#t-bank
 */
export const tbank: PresetFactory<TBankOptions, TBankMinimalEvents> = /* @__PURE__ */ secretMember<
  TBankOptions,
  string,
  KeyedRow<string>
>({
  provider: 'tbank',
  secret: [stringKeyring, 'password', 'the terminal password'],
  family: keyedPreset,
  row: {
    keyDescription: 'PaymentId, Status and Amount',
    needsRawBody: false,
    retentionDays: 30,
    id: notificationKey,
    signedWith(request, passwords) {
      const body = jsonBody(request);
      const given = body?.Token;
      if (!body || typeof given !== 'string') return undefined;
      return firstMatch(passwords, (password) => hexEquals(given, tokenOf(body, password)));
    },
    fingerprint: /* @__PURE__ */ objectFingerprint(jsonBody),
    unauthorized: refusedText,
    inProgress: inProgressText,
    eventType: (request) => idPart(jsonBody(request)?.Status),
  },
});
