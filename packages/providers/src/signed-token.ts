/**
 * @module The check the token-signing presets share (QStash, Vonage): a JWT from one header,
 * its `alg` on the preset's allow-list, its time claims on the preset's clock, the provider's own
 * claims (issuer, audience, a digest of the raw body), then its signature under each candidate key.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest } from '@webhook-idempotency/core';
import {
  type JwtAlgorithm,
  type JwtKey,
  type JwtObject,
  type JwtTimeRules,
  jwtSignatureValid,
  jwtTimely,
  parseJwt,
} from './jwt';
import { firstMatch } from './secrets';
import { stringEquals } from './signature';

/** How a provider sends its token, and what the preset checks in it besides the signature. */
export interface TokenCheck {
  /** The compact token of a request (a header's value, a bearer token), or `undefined`. */
  readonly token: (request: HttpRequest) => string | undefined;
  /** The algorithms the provider signs with: nothing else is ever verified. */
  readonly algorithms: readonly JwtAlgorithm[];
  readonly time: JwtTimeRules;
  /** The provider's own claims, checked against the request (its body's digest, its URL). */
  readonly claims: (claims: JwtObject, request: HttpRequest) => boolean;
}

/** The match of a keyring of JWT keys: the key whose signature the request's token carries, once every claim holds. */
export function tokenMatch<K extends JwtKey>(check: TokenCheck) {
  return (request: HttpRequest, keys: readonly K[]): K | undefined => {
    const text = check.token(request);
    const token = text === undefined ? undefined : parseJwt(text, check.algorithms);
    if (token === undefined || !jwtTimely(token.claims, check.time)) return undefined;
    if (!check.claims(token.claims, request)) return undefined;
    return firstMatch(keys, (key) => jwtSignatureValid(token, key));
  };
}

/**
 * True when `claim` is the SHA-256 of the raw body in `encoding` (base64url compared without
 * padding, hex without case), compared in constant time; false without a raw body.
 */
export function bodyDigestClaim(
  claim: unknown,
  rawBody: Buffer | undefined,
  encoding: 'hex' | 'base64url',
): boolean {
  if (typeof claim !== 'string' || rawBody === undefined) return false;
  const digest = createHash('sha256').update(rawBody).digest(encoding);
  const given = encoding === 'hex' ? claim.toLowerCase() : claim.replace(/=+$/, '');
  return stringEquals(given, digest);
}
