/**
 * @module Robokassa preset: the ResultURL notification, a form whose `SignatureValue` is a hex
 * hash (MD5 unless the shop's settings say otherwise) of `OutSum:InvId:Password#2` and the
 * `Shp_` parameters in alphabetical order; answered with the text `OK{InvId}`.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import type { PresetFactory } from './events';
import { keyedPreset } from './keyed-preset';
import { oneOf } from './options';
import { byName, formEntries } from './multipart';
import { formFields, idPart } from './request-fields';
import { firstMatch, type SecretOptions, stringKeyring } from './secrets';
import { hexEquals } from './signature';
import { inProgressText, refusedText } from './text-protocol';

/** The hash the shop's technical settings choose for its signatures. */
export type RobokassaAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512' | 'ripemd160';

/**
 * Options of {@link robokassa}: `password2`, the shop's Password #2 (the one ResultURL is signed
 * with), or several while you change it; or `resolveSecret`, a lookup per request.
 */
export type RobokassaOptions = SecretOptions<'password2', string> & {
  /** The hash of the shop's technical settings. Defaults to `'md5'` (Robokassa's default). */
  signatureAlgorithm?: RobokassaAlgorithm;
};

/** A ResultURL notification as this preset reads it (form fields, as sent). */
export interface RobokassaMinimalResult {
  readonly OutSum: string;
  readonly InvId: string;
  readonly SignatureValue: string;
}

/** Robokassa sends one kind of notification, a paid invoice: `result`. */
export type RobokassaMinimalEvents = Record<'result', RobokassaMinimalResult>;

const ALGORITHMS: readonly RobokassaAlgorithm[] = [
  'md5',
  'sha1',
  'sha256',
  'sha384',
  'sha512',
  'ripemd160',
];
const SHP = /^shp_/i;

/** `OutSum:InvId:password[:Shp_a=1:Shp_b=2]`, the custom parameters sorted by name; `undefined` without the sum or the invoice. */
function signedText(request: HttpRequest, password: string): string | undefined {
  const fields = formFields(request);
  const sum = fields.get('OutSum');
  const invoice = fields.get('InvId');
  if (!sum || !invoice) return undefined;
  const custom = byName(formEntries(request).filter(([name]) => SHP.test(name))).map(
    ([name, value]) => `${name}=${value}`,
  );
  return [sum, invoice, password, ...custom].join(':');
}

/**
 * Robokassa preset (the ResultURL notification of a paid invoice; choose POST for it in the
 * shop's technical settings: a GET passes unguarded).
 *
 * - **Key**: `InvId`, the invoice Robokassa notifies about; it notifies once per paid invoice and
 *   repeats the same notification until answered.
 * - **Signature**: `SignatureValue` = hex hash (`signatureAlgorithm`, MD5 by default) of
 *   `OutSum:InvId:Password#2`, then each `Shp_` parameter as `Shp_name=value` in alphabetical
 *   order, over the values exactly as received; hex in either case, compared in constant time.
 * - **Answers**: your handler answers `OK` followed by the InvId (`OK42`, plain text): Robokassa
 *   counts anything else as a failure. The preset's refusal (401) and in-progress answer (409,
 *   `Retry-After`) are plain text and never that.
 * - **Retention**: 30 days (payment notifications; the retry schedule is UNCONFIRMED).
 *
 * @example
 * const preset = providers.robokassa({ password2: process.env.ROBOKASSA_PASSWORD2! });
 * @throws {ConfigError} naming `password2`, `resolveSecret` or `signatureAlgorithm` when invalid.
 * @see docs/providers.md#robokassa
 */
export const robokassa: PresetFactory<RobokassaOptions, RobokassaMinimalEvents> = (options) => {
  const ring = stringKeyring('robokassa', options, 'password2', 'the shop Password #2');
  const algorithm = oneOf(
    'robokassa',
    'signatureAlgorithm',
    options.signatureAlgorithm,
    ALGORITHMS,
    'md5',
  );

  return keyedPreset(ring, {
    provider: 'robokassa',
    keyDescription: 'InvId form field',
    needsRawBody: false,
    retentionDays: 30,
    id: (request) => idPart(formFields(request).get('InvId')),
    signedWith(request, passwords) {
      const given = formFields(request).get('SignatureValue');
      if (given === undefined) return undefined;
      return firstMatch(passwords, (password) => {
        const text = signedText(request, password);
        return text !== undefined && hexEquals(given, createHash(algorithm).update(text).digest());
      });
    },
    unauthorized: refusedText,
    inProgress: inProgressText,
    eventType: (request) => (formFields(request).get('InvId') ? 'result' : undefined),
  });
};
