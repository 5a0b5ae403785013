/**
 * @module The keyring and check of the presets whose provider sends a static secret token instead
 * of a signature (GitLab's `X-Gitlab-Token`, Telegram's `X-Telegram-Bot-Api-Secret-Token`, Auth0's
 * and Okta's header, Google Calendar's channel token, Microsoft Graph's `clientState`, Azure Event
 * Grid's URL secret): each configured token kept as its digest, and compared in constant time.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { requireOptions } from './options';
import { header } from './request-fields';
import { firstMatch, type Keyring, type SecretResolver, stringKeyring } from './secrets';
import { secretDigest, secretEquals } from './signature';

/**
 * The keyring of a preset given its provider's secret tokens under `option` (or `resolveSecret`):
 * each token kept only as its digest, for {@link secretEquals}.
 * @throws {ConfigError} naming `options` or `option` when invalid.
 */
export function tokenKeyring<O extends { readonly resolveSecret?: SecretResolver<string> }>(
  preset: string,
  options: O,
  option: keyof O & string,
  what: string,
): Keyring<Buffer> {
  requireOptions(preset, options);
  return stringKeyring(preset, options, option, what, { toKey: secretDigest });
}

/** The match of a keyring of token digests: the digest of the token the request's header `name` carries. */
export function tokenHeaderMatch(name: string) {
  return (request: HttpRequest, digests: readonly Buffer[]): Buffer | undefined => {
    const given = header(request, name);
    return given === undefined
      ? undefined
      : firstMatch(digests, (expected) => secretEquals(given, expected));
  };
}
