/**
 * @module The signature Discord, SendGrid and Telnyx share in shape: a public-key signature, in a
 * header of its own, of a Unix-seconds timestamp header followed by the raw body (Telnyx puts a
 * `|` between them). The stamp must be within the preset's tolerance of its clock.
 */
import { type KeyObject, verify as verifySignature } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import { header } from './request-fields';
import { firstMatch } from './secrets';
import { isFresh, parseUnixSeconds } from './signature';

/** How a provider sends its stamped signature, and how the preset checks it. */
export interface StampedSignature {
  /** The header carrying the signature, and the one carrying the signed timestamp (lower case). */
  readonly header: string;
  readonly stampHeader: string;
  /** How the signature is spelled, and what a well-formed one looks like. */
  readonly encoding: 'hex' | 'base64';
  readonly pattern: RegExp;
  /** The digest `node:crypto` verifies with (`null` for Ed25519). */
  readonly algorithm: string | null;
  /** How an ECDSA signature is encoded; unset for other keys. */
  readonly dsaEncoding?: 'der';
  /** What the provider puts between the stamp and the body. Defaults to nothing. */
  readonly separator?: string;
  /** The preset's clock, and how far from it a stamp may be, in seconds. */
  readonly now: () => number;
  readonly tolerance: number;
}

/** The match of a keyring of public keys: the key whose signature of stamp + raw body the request carries. */
export function stampedSignatureMatch(s: StampedSignature) {
  const { dsaEncoding, separator = '' } = s;
  const keyFor = (key: KeyObject) => (dsaEncoding === undefined ? key : { key, dsaEncoding });
  return (request: HttpRequest, keys: readonly KeyObject[]): KeyObject | undefined => {
    const signature = header(request, s.header);
    const stamp = header(request, s.stampHeader);
    const seconds = parseUnixSeconds(stamp);
    const { rawBody } = request;
    if (rawBody === undefined || signature === undefined || !s.pattern.test(signature))
      return undefined;
    if (stamp === undefined || seconds === undefined || !isFresh(seconds, s.now(), s.tolerance))
      return undefined;
    const signed = Buffer.concat([Buffer.from(stamp + separator, 'utf8'), rawBody]);
    const bytes = Buffer.from(signature, s.encoding);
    return firstMatch(keys, (key) => verifySignature(s.algorithm, signed, keyFor(key), bytes));
  };
}
