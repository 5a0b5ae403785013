/**
 * @module Compact JSON Web Tokens (JWS) as the token-signing providers send them (QStash, Vonage,
 * Plaid, Google's OIDC tokens…), on `node:crypto` alone: the token parsed strictly, its `alg`
 * checked against the preset's own allow-list before any key is touched (never `none`, never an
 * HMAC where a public key is expected, never a public-key algorithm with a shared secret), the
 * signature verified over the token's first two parts, and the time claims read against the
 * preset's clock. Imports nothing of the other presets.
 */
import { createHmac, type KeyObject, verify } from 'node:crypto';
import { bytesEqual } from './signature';

/** The algorithms a preset may allow: HMAC-SHA256, RSA PKCS#1 v1.5 SHA-256, ECDSA P-256 SHA-256, Ed25519. */
export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256' | 'EdDSA';

/** A JSON object read from a token part. */
export type JwtObject = Readonly<Record<string, unknown>>;

/** A token split and decoded, not yet verified. */
export interface ParsedJwt {
  /** The header's `alg`, one of the allow-list. */
  readonly alg: JwtAlgorithm;
  readonly header: JwtObject;
  readonly claims: JwtObject;
  /** `base64url(header).base64url(claims)`, the bytes the signature covers. */
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

/** What a JWT key is: a shared secret's bytes (HS256), or a public key. */
export type JwtKey = Buffer | KeyObject;

const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** The key type each public-key algorithm needs (`asymmetricKeyType`). */
const KEY_TYPE: Readonly<Record<Exclude<JwtAlgorithm, 'HS256'>, string>> = {
  RS256: 'rsa',
  ES256: 'ec',
  EdDSA: 'ed25519',
};

/** A base64url part (no padding, nothing outside the alphabet) as bytes, or `undefined`. */
function base64url(part: string): Buffer | undefined {
  if (!BASE64URL.test(part) || part.length % 4 === 1) return undefined;
  return Buffer.from(part, 'base64url');
}

/** A base64url part holding a JSON object, or `undefined`. */
function jsonPart(part: string): JwtObject | undefined {
  const bytes = base64url(part);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as JwtObject)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A compact JWS split into its parts, with an `alg` among `allowed` (`none` is never allowed,
 * whatever the list says), or `undefined` for anything else: a token that is not three
 * base64url parts, a header or claims that are not JSON objects, a `crit` header (no extension
 * is understood), an empty signature.
 */
export function parseJwt(token: string, allowed: readonly JwtAlgorithm[]): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, sig] = parts as [string, string, string];
  const header = jsonPart(head);
  const claims = jsonPart(body);
  const signature = base64url(sig);
  if (header === undefined || claims === undefined || signature === undefined) return undefined;
  const alg = header.alg;
  if (typeof alg !== 'string' || !(allowed as readonly string[]).includes(alg)) return undefined;
  if (header.crit !== undefined || signature.length === 0) return undefined;
  const signingInput = Buffer.from(`${head}.${body}`, 'ascii');
  return { alg: alg as JwtAlgorithm, header, claims, signingInput, signature };
}

/** True when `key` is of the kind `alg` needs: a secret's bytes for HS256, the right public key otherwise. */
function keyFits(alg: JwtAlgorithm, key: JwtKey): boolean {
  if (alg === 'HS256') return Buffer.isBuffer(key);
  if (Buffer.isBuffer(key) || key.type !== 'public') return false;
  if (alg === 'ES256' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return false;
  return key.asymmetricKeyType === KEY_TYPE[alg];
}

/**
 * True when `token`'s signature verifies under `key` with the token's own (allowed) `alg`. A key
 * of the wrong kind for the algorithm is a failure, never a conversion: an HMAC token is not
 * checked against a public key's bytes, nor an RSA token with an EC key. Constant-time for HS256.
 */
export function jwtSignatureValid(token: ParsedJwt, key: JwtKey): boolean {
  const { alg, signingInput, signature } = token;
  if (!keyFits(alg, key)) return false;
  try {
    switch (alg) {
      case 'HS256':
        return bytesEqual(
          createHmac('sha256', key as Buffer)
            .update(signingInput)
            .digest(),
          signature,
        );
      case 'ES256':
        // JWS spells an ECDSA signature as r‖s (64 bytes for P-256), not DER.
        return (
          signature.length === 64 &&
          verify(
            'sha256',
            signingInput,
            { key: key as KeyObject, dsaEncoding: 'ieee-p1363' },
            signature,
          )
        );
      case 'RS256':
        return verify('sha256', signingInput, key as KeyObject, signature);
      case 'EdDSA':
        return verify(null, signingInput, key as KeyObject, signature);
    }
  } catch {
    return false;
  }
}

/** How a preset reads a token's time claims. */
export interface JwtTimeRules {
  /** The preset's clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Seconds of clock skew allowed on every time claim, both ways. */
  readonly tolerance: number;
  /** The claims the token must carry (`exp`, `iat`…); any other is checked only when present. */
  readonly required?: readonly ('exp' | 'nbf' | 'iat')[];
  /** When set: how old `iat` may be, in seconds (Plaid's five minutes). */
  readonly maxAgeSeconds?: number;
}

/** A NumericDate claim: seconds since the epoch, a finite number; `null` when absent, `undefined` when malformed. */
function numericDate(claims: JwtObject, name: string): number | null | undefined {
  const value = claims[name];
  if (value === undefined) return null;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * True when `claims` are in force at the preset's clock: not expired (`exp`), not before their
 * start (`nbf`), not issued in the future (`iat`), and not older than `maxAgeSeconds` when set,
 * each within `tolerance` seconds. A required claim that is absent, or any time claim that is
 * not a number, is a failure.
 */
export function jwtTimely(claims: JwtObject, rules: JwtTimeRules): boolean {
  const now = rules.now() / 1000;
  const { tolerance } = rules;
  const exp = numericDate(claims, 'exp');
  const nbf = numericDate(claims, 'nbf');
  const iat = numericDate(claims, 'iat');
  if (exp === undefined || nbf === undefined || iat === undefined) return false;
  const present = { exp, nbf, iat };
  if ((rules.required ?? []).some((name) => present[name] === null)) return false;
  if (exp !== null && now > exp + tolerance) return false;
  if (nbf !== null && now < nbf - tolerance) return false;
  if (iat !== null && now < iat - tolerance) return false;
  const { maxAgeSeconds } = rules;
  if (maxAgeSeconds !== undefined && (iat === null || now - iat > maxAgeSeconds + tolerance))
    return false;
  return true;
}

/** The string claim `name`, or `undefined`. */
export function stringClaim(claims: JwtObject, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' ? value : undefined;
}

/** The token of an `Authorization: Bearer <token>` value, or `undefined`. */
export function bearerToken(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^Bearer +(\S+)$/i.exec(value.trim());
  return match?.[1];
}
