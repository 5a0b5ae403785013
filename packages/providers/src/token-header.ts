/**
 * @module The check of the presets whose provider sends a static secret token in a header (GitLab's
 * `X-Gitlab-Token`, Telegram's `X-Telegram-Bot-Api-Secret-Token`): compared in constant time with
 * each configured token's digest.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { header } from './request-fields';
import { firstMatch } from './secrets';
import { secretEquals } from './signature';

/** The match of a keyring of token digests: the digest of the token the request's header `name` carries. */
export function tokenHeaderMatch(name: string) {
  return (request: HttpRequest, digests: readonly Buffer[]): Buffer | undefined => {
    const given = header(request, name);
    return given === undefined
      ? undefined
      : firstMatch(digests, (expected) => secretEquals(given, expected));
  };
}
