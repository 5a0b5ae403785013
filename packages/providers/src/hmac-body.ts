/**
 * @module What `hmac()` reads from a delivery's signed JSON body besides its items: the delivery
 * id at a dot path (`key: { json: 'event_id' }`) and the fields a retry changes, left out of the
 * fingerprint (`fingerprintOmit: ['webhook_metadata.attempt']`).
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import { ConfigError, defaultFingerprint } from '@webhook-idempotency/core';
import { canonicalFingerprint } from './fingerprint';
import { atPath, pathSteps } from './hmac-items';
import { idPart, isJsonObject, jsonBody, type JsonObject } from './request-fields';

/** The delivery id at a dot path of the JSON body (numbers as their decimal text); `undefined` elsewhere. */
export function jsonKey(path: unknown): {
  read: (request: HttpRequest) => string | undefined;
  description: string;
} {
  const steps = pathSteps('key.json', path);
  return {
    read: (request) => idPart(atPath(jsonBody(request), steps)),
    description: `${steps.join('.')} field of the JSON body`,
  };
}

/** `value` without the field at `steps` (copies along the path; `value` itself is not changed). */
function without(value: JsonObject, steps: readonly string[]): JsonObject {
  const [first, ...rest] = steps;
  if (first === undefined || !(first in value)) return value;
  const { [first]: inner, ...others } = value;
  if (rest.length === 0) return others;
  return isJsonObject(inner) ? { ...others, [first]: without(inner, rest) } : value;
}

/**
 * The fingerprint of a JSON body without the fields at the dot paths named: a retry that changes
 * only those (an attempt counter, an attempt id) is replayed, not refused as another body. A body
 * that is not a JSON object has the engine's default fingerprint.
 * @throws {ConfigError} naming `fingerprintOmit` when it is not a list of dot paths.
 */
export function fingerprintWithout(paths: unknown): {
  fingerprint?: (request: HttpRequest) => string | undefined;
} {
  if (paths === undefined) return {};
  if (!Array.isArray(paths) || paths.length === 0)
    throw new ConfigError('fingerprintOmit', 'hmac() needs a list of dot paths in the JSON body');
  const omitted = paths.map((path: unknown) => pathSteps('fingerprintOmit', path));
  return {
    fingerprint(request) {
      const body = jsonBody(request);
      if (body === undefined) return defaultFingerprint(request) ?? undefined;
      return canonicalFingerprint(omitted.reduce(without, body));
    },
  };
}
