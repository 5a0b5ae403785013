/** @module HTTP Basic credentials check in constant time, for providers that authenticate with a static login (Payme, Uzum). */
import { ConfigError } from '@webhook-idempotency/core';
import { secretDigest, secretEquals } from './signature';

const BASIC = /^basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;

/**
 * Builds a checker for `Authorization: Basic base64(login:password)`. The expected pair is hashed
 * once here; each check hashes what was sent and compares the digests in constant time, so neither
 * the credentials nor their length leak through timing. A missing or garbled header is `false`.
 * @param loginOption how the preset's options name the login, for the error.
 * @throws {ConfigError} naming `loginOption` when the login contains ":" (HTTP Basic cannot carry it).
 */
export function basicAuthChecker(
  preset: string,
  loginOption: string,
  login: string,
  password: string,
): (authorization: string | undefined) => boolean {
  if (login.includes(':'))
    throw new ConfigError(
      loginOption,
      `${preset}() needs a ${loginOption} without ":" (HTTP Basic cannot carry it)`,
    );
  const expected = secretDigest(`${login}:${password}`);
  return function checkBasicAuth(authorization) {
    if (authorization === undefined) return false;
    const match = BASIC.exec(authorization);
    if (!match) return false;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    if (!decoded.includes(':')) return false;
    return secretEquals(decoded, expected);
  };
}
