/** @module docs/reference/errors.md: branching on the guard's errors. Run by test/errors.test.ts. */
// #region branch
import { isIdempotencyError, RequestInProgress } from '@webhook-idempotency/core';
// #endregion branch
import type { Handler, IdempotencyGuard, RequestKey } from '@webhook-idempotency/core';

/** What the caller answers: status and body. */
export type Reply = (status: number, body: unknown) => unknown;

/** Runs one delivery through the guard and answers the guard's errors itself. */
export async function deliver(
  guard: IdempotencyGuard<unknown>,
  key: RequestKey,
  handler: Handler<unknown, unknown>,
  reply: Reply,
): Promise<unknown> {
  // #region branch
  try {
    await guard.run(key, handler);
  } catch (error) {
    if (error instanceof RequestInProgress)
      return reply(409, { retryAfter: error.retryAfterSeconds });
    if (isIdempotencyError(error)) return reply(error.httpStatus, { code: error.code });
    throw error; // your handler's own error: the receipt is already marked failed
  }
  // #endregion branch
  return reply(200, { ok: true });
}
