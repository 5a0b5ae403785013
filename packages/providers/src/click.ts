/** @module Click SHOP API preset (Prepare / Complete): form-encoded requests signed with an MD5 `sign_string`. */
import type { HttpRequest } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import type { TypedPreset } from './events';
import { keyedPreset } from './keyed-preset';
import { canonicalFingerprint } from './fingerprint';
import { oneOf, requireOptions } from './options';
import { formFields, parseJsonObject, type FormFields } from './request-fields';
import { jsonText, withBody } from './response';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hexEquals, md5 } from './signature';

/**
 * Options of {@link click}: `secretKey`, the service's `SECRET_KEY` from the Click merchant
 * cabinet, or several while you change it; or `resolveSecret`, a lookup per request (one service
 * per customer).
 */
export type ClickOptions = SecretOptions<'secretKey', string> & {
  /**
   * How a repeat of an already successful Complete is answered. `'already-paid'` replays the
   * stored answer with `error: -4, error_note: 'Already paid'`, which is what Click's own test
   * suite expects for a repeated Complete; `'replay'` returns the stored answer unchanged.
   * Click's docs contradict each other here (docs/providers.md#click, UNCONFIRMED). Defaults to `'already-paid'`.
   */
  repeatedComplete?: 'already-paid' | 'replay';
};

/** A Click request's form fields as this preset reads them (ids and amounts as sent, strings). */
export interface ClickMinimalRequest {
  readonly click_trans_id: string;
  readonly service_id: string;
  readonly merchant_trans_id: string;
  readonly amount: string;
  readonly action: string;
  readonly error: string;
  readonly sign_time: string;
  readonly sign_string: string;
}

/** Click's two operations, by `action`: `prepare` (0) and `complete` (1). */
export type ClickMinimalEvents = Record<'prepare' | 'complete', ClickMinimalRequest>;

const PREPARE = '0';
const COMPLETE = '1';
const INTEGER = /^-?\d+$/;
const DIGITS = /^\d+$/;
const ERROR_ZERO = /"error"\s*:\s*0(?=\s*[,}])/;
const ERROR_NOTE = /"error_note"\s*:\s*"(?:[^"\\]|\\.)*"/;

/** The form fields that define the operation; `sign_time`, `sign_string` and `error_note` are left out. */
const FINGERPRINT_FIELDS = [
  'click_trans_id',
  'service_id',
  'click_paydoc_id',
  'merchant_trans_id',
  'merchant_prepare_id',
  'amount',
  'action',
  'error',
] as const;

/** `click_trans_id:0` for Prepare, `click_trans_id:1:ok` or `click_trans_id:1:cancel` for Complete. */
function clickKey(request: HttpRequest): string | undefined {
  const fields = formFields(request);
  const id = fields.get('click_trans_id');
  if (id === undefined || id === '') return undefined;
  const action = fields.get('action');
  if (action === PREPARE) return `${id}:${PREPARE}`;
  if (action !== COMPLETE) return undefined;
  // Click reports a failed payment as a Complete with error < 0: that is a cancellation, a
  // different operation from a successful Complete on the same click_trans_id.
  const error = fields.get('error');
  if (error === undefined || !INTEGER.test(error)) return undefined;
  return `${id}:${COMPLETE}:${Number(error) < 0 ? 'cancel' : 'ok'}`;
}

/** The `sign_string` inputs in Click's documented order, or `undefined` when one is missing. */
function signedParts(fields: FormFields, secretKey: string): string[] | undefined {
  const names =
    fields.get('action') === COMPLETE
      ? [
          'click_trans_id',
          'service_id',
          '',
          'merchant_trans_id',
          'merchant_prepare_id',
          'amount',
          'action',
          'sign_time',
        ]
      : ['click_trans_id', 'service_id', '', 'merchant_trans_id', 'amount', 'action', 'sign_time'];
  const parts: string[] = [];
  for (const name of names) {
    const value = name === '' ? secretKey : fields.get(name);
    if (value === undefined) return undefined;
    parts.push(value);
  }
  return parts;
}

/** An id as a JSON number when it is all digits (Click's ids are 64-bit: no rounding through `Number`), else a string. */
function idJson(value: string | undefined): string {
  return value !== undefined && DIGITS.test(value) ? value : JSON.stringify(value ?? null);
}

/** True when `sign_string` is Click's MD5 under `secret`. */
function signStringMatches(fields: FormFields, secret: string): boolean {
  const parts = signedParts(fields, secret);
  const given = fields.get('sign_string');
  return parts !== undefined && given !== undefined && hexEquals(given, md5(parts));
}

/** The fingerprint of the operation's fields ({@link FINGERPRINT_FIELDS}). */
function clickFingerprint(request: HttpRequest): string {
  const fields = formFields(request);
  const picked: Record<string, string | undefined> = {};
  for (const name of FINGERPRINT_FIELDS) picked[name] = fields.get(name);
  return canonicalFingerprint(picked);
}

/**
 * The stored answer of a successful Complete, replayed as `error: -4, error_note: 'Already paid'`;
 * any other stored answer as it is.
 */
function alreadyPaid(stored: HttpResponseRecord, request: HttpRequest): HttpResponseRecord {
  if (!clickKey(request)?.endsWith(':1:ok')) return stored;
  if (parseJsonObject(stored.body.toString('utf8'))?.error !== 0) return stored;
  // Edit the text rather than re-serialise it: JSON.parse would round 64-bit ids.
  const text = stored.body
    .toString('utf8')
    .replace(ERROR_ZERO, '"error":-4')
    .replace(ERROR_NOTE, '"error_note":"Already paid"');
  return withBody(stored, Buffer.from(text, 'utf8'));
}

/** Click's answer to a request whose `sign_string` does not verify: HTTP 200, `error: -1`. */
function signCheckFailed(request: HttpRequest): HttpResponseRecord {
  const fields = formFields(request);
  return jsonText(
    200,
    `{"click_trans_id":${idJson(fields.get('click_trans_id'))},"merchant_trans_id":${JSON.stringify(fields.get('merchant_trans_id') ?? null)},"error":-1,"error_note":"SIGN CHECK FAILED"}`,
  );
}

/** `prepare` or `complete`, by the `action` field. */
function operation(request: HttpRequest): string | undefined {
  const action = formFields(request).get('action');
  return action === PREPARE ? 'prepare' : action === COMPLETE ? 'complete' : undefined;
}

/**
 * Click SHOP API preset (docs/providers.md#click).
 *
 * - **Key**: `click_trans_id:action`, plus the outcome class for Complete: `12345:0` (Prepare),
 *   `12345:1:ok` (Complete), `12345:1:cancel` (Complete with `error < 0`). Prepare and Complete of
 *   one payment attempt share `click_trans_id`, and a cancel-Complete may follow a successful one.
 *   Ids are kept as the strings received: they are 64-bit and may exceed `Number.MAX_SAFE_INTEGER`.
 * - **Pass-through**: requests whose `action` is present but neither 0 nor 1, so the handler can
 *   answer -3 (action not found) with HTTP 200. Click has no read-only operation.
 * - **Signature**: `sign_string` = MD5 hex of `click_trans_id + service_id + SECRET_KEY +
 *   merchant_trans_id [+ merchant_prepare_id for Complete] + amount + action + sign_time`, over the
 *   field values exactly as received (the `amount` string is not re-formatted), compared in
 *   constant time. Fields are read from the raw body when present, else from the parsed form.
 *   A failure is answered HTTP 200 with `error: -1, error_note: 'SIGN CHECK FAILED'`.
 * - **Fingerprint**: the operation's fields without `sign_time`, `sign_string` and `error_note`,
 *   since whether Click re-signs a retry with a new `sign_time` is UNCONFIRMED.
 * - **In progress**: the default answer (409). Click re-sends when it gets no good answer; a Click
 *   error code here (-8, -9) could make Click cancel a payment that is still being completed.
 * - **Retention**: 3650 days. The receipt mirrors the payment record, which is kept permanently.
 *
 * @example
 * import * as providers from '@webhook-idempotency/providers';
 * const preset = providers.click({ secretKey: process.env.CLICK_SECRET_KEY! });
 * preset.key(request); // '2263123456:0' for a Prepare
 * @throws {ConfigError} naming `secretKey` or `repeatedComplete` when invalid.
 * @see docs/providers.md#click
 */
export function click<Events extends object = ClickMinimalEvents>(
  options: ClickOptions,
): TypedPreset<Events> {
  const { repeatedComplete } = requireOptions('click', options);
  const ring = stringKeyring('click', options, 'secretKey', 'the service SECRET_KEY');
  const repeat = oneOf(
    'click',
    'repeatedComplete',
    repeatedComplete,
    ['already-paid', 'replay'],
    'already-paid',
  );

  return keyedPreset<Events, string>(ring, {
    provider: 'click',
    keyDescription: 'click_trans_id and action (0 or 1; error on Complete)',
    needsRawBody: false,
    retentionDays: 3650,
    id: clickKey,
    passThrough(request) {
      const action = formFields(request).get('action');
      return action !== undefined && action !== PREPARE && action !== COMPLETE;
    },
    signedWith: (r, secrets) =>
      firstMatch(secrets, (secret) => signStringMatches(formFields(r), secret)),
    fingerprint: clickFingerprint,
    replay: repeat === 'replay' ? (stored) => stored : alreadyPaid,
    unauthorized: signCheckFailed,
    eventType: operation,
  });
}
