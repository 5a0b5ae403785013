/**
 * @module The signature GitHub and Meta share: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of
 * the raw body>`, checked under each secret in constant time.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { header } from './request-fields';
import { firstMatch } from './secrets';
import { hmacMatches } from './signature';

const PREFIX = 'sha256=';

/** The secret among `secrets` whose signature the request carries; `undefined` for none (or no raw body). */
export function hubSignatureMatch(
  request: HttpRequest,
  secrets: readonly string[],
): string | undefined {
  const given = header(request, 'x-hub-signature-256');
  const { rawBody } = request;
  if (rawBody === undefined || given === undefined || !given.startsWith(PREFIX)) return undefined;
  const signature = given.slice(PREFIX.length);
  return firstMatch(secrets, (secret) => hmacMatches(secret, [rawBody], [signature], 'hex'));
}
