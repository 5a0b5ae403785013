/**
 * @module HTTP Basic credentials checked in constant time, for the presets whose provider
 * authenticates with a static login instead of a signature (Payme, Uzum, Postmark): the checker
 * of one pair, the keyring of a preset's pairs, and the `verify` they all share.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import type { TypedPreset } from './events';
import { type KeyedRow, keyedPreset } from './keyed-preset';
import { requireOptions, requireString } from './options';
import { header } from './request-fields';
import {
  firstMatch,
  type Keyring,
  keyring,
  type OneOrMany,
  type SecretKind,
  type SecretOptions,
  type SecretResolver,
} from './secrets';
import { secretDigest, secretEquals } from './signature';

/**
 * The options of a preset authenticated by HTTP Basic: the one pair `username` and `password`; or
 * `credentials`, several pairs while they change (any one passes); or `resolveSecret`, a lookup
 * per request.
 */
export type BasicAuthOptions =
  | { username: string; password: string; credentials?: undefined; resolveSecret?: undefined }
  | ({ username?: undefined; password?: undefined } & SecretOptions<
      'credentials',
      BasicCredentials
    >);

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

/**
 * What a preset given its provider's Basic credentials reads of its options: the one pair
 * `username` and `password`; or `credentials`, several pairs while they change (any one passes);
 * or `resolveSecret`, a lookup per request. (Postmark's and Uzum's options types say which
 * combinations are allowed.)
 */
interface CredentialsOptions {
  readonly username?: string;
  readonly password?: string;
  readonly credentials?: OneOrMany<BasicCredentials>;
  readonly resolveSecret?: SecretResolver<BasicCredentials>;
}

/** The fixed credentials of a preset's options: `credentials`, or the one pair `username` and `password`. */
export function givenCredentials(
  options: CredentialsOptions,
): OneOrMany<BasicCredentials> | undefined {
  const { username, password, credentials } = options;
  if (username === undefined && password === undefined) return credentials;
  if (credentials !== undefined)
    throw new ConfigError(
      'credentials',
      'takes "username" and "password", or "credentials", not both',
    );
  return { username: username as string, password: password as string };
}

/**
 * The keyring of a preset given its provider's Basic credentials: one checker per pair, or the lookup.
 * @throws {ConfigError} naming the first invalid option.
 */
export function credentialsKeyring(
  preset: string,
  options: CredentialsOptions,
): Keyring<BasicCheck> {
  const o = requireOptions(preset, options);
  return keyring(credentialsSecret(preset), givenCredentials(o), o.resolveSecret);
}

/** The pair among `checks` the request's `Authorization` header carries (each one tried, in constant time). */
function basicAuthMatch(
  request: HttpRequest,
  checks: readonly BasicCheck[],
): BasicCheck | undefined {
  const authorization = header(request, 'authorization');
  return firstMatch(checks, (check) => check(authorization));
}

/** One preset authenticated by HTTP Basic: what is that provider's, nothing the family does for all. */
export type BasicAuthRow = Omit<KeyedRow<BasicCheck>, 'signedWith' | 'needsRawBody'>;

/**
 * A preset authenticated by HTTP Basic from its keyring and row: the `Authorization` header is
 * checked against every pair, the id is scoped by the tenant, and no raw body is asked for
 * (credentials sign no bytes).
 */
export function basicAuthPreset<Events extends object>(
  ring: Keyring<BasicCheck>,
  row: BasicAuthRow,
): TypedPreset<Events> {
  return keyedPreset<Events, BasicCheck>(ring, {
    ...row,
    needsRawBody: false,
    signedWith: basicAuthMatch,
  });
}
