/** @module HTTP Basic credentials check in constant time, for providers that authenticate with a static login (Payme, Uzum). */
import { ConfigError } from '@webhook-idempotency/core';
import { requireString } from './options';
import { firstMatch, type OneOrMany, type SecretKind } from './secrets';
import { secretDigest, secretEquals } from './signature';

/** A check of an `Authorization` header against one pair of credentials. */
export type BasicCheck = (authorization: string | undefined) => boolean;

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

/** A user name and password a provider sends as HTTP Basic credentials. */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * The {@link SecretKind} of a preset whose secret is a pair of HTTP Basic credentials: each pair
 * becomes a checker of the `Authorization` header.
 */
export function credentialsSecret(preset: string): SecretKind<BasicCredentials, BasicCheck> {
  return {
    preset,
    option: 'credentials',
    what: 'the Basic-auth { username, password }',
    prepare(pair) {
      if (typeof pair !== 'object' || pair === null)
        throw new ConfigError(
          'credentials',
          `${preset}() needs credentials as { username, password }`,
        );
      return basicAuthChecker(
        preset,
        'username',
        requireString(preset, 'username', pair.username, 'the Basic-auth user name as "username"'),
        requireString(preset, 'password', pair.password, 'the Basic-auth password as "password"'),
      );
    },
  };
}

/** The fixed credentials of a preset's options: `credentials`, or the one pair `username` and `password`. */
export function givenCredentials(options: {
  username?: string;
  password?: string;
  credentials?: OneOrMany<BasicCredentials>;
}): OneOrMany<BasicCredentials> | undefined {
  const { username, password, credentials } = options;
  if (username === undefined && password === undefined) return credentials;
  if (credentials !== undefined)
    throw new ConfigError(
      'credentials',
      'takes "username" and "password", or "credentials", not both',
    );
  return { username: username as string, password: password as string };
}

/** Checks `authorization` against every candidate pair (each one tried, in constant time). */
export function basicAuthMatch(checks: readonly BasicCheck[], authorization: string | undefined) {
  return firstMatch(checks, (check) => check(authorization));
}
