/** @module The one try/catch around the presets' authenticity checks. */
import type { HttpRequest } from '@webhook-idempotency/core';

/** A preset's synchronous authenticity check. */
export type VerifyFunction = (request: HttpRequest) => boolean;

/**
 * Wraps a preset's `verify` so that a request it cannot read (a garbled header, odd bytes, a body
 * that trips a parser) is answered as not authentic instead of throwing: the engine then sends
 * the preset's 401 answer rather than a 500. Only a returned `true` passes.
 * @example
 * verify: safeVerify((request) => checkAuth(header(request, 'authorization'))),
 */
export function safeVerify(check: VerifyFunction): VerifyFunction {
  return function verify(request) {
    try {
      return check(request) === true;
    } catch {
      return false;
    }
  };
}
