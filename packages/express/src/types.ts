/** @module Public types of the Express adapter, and the `req.idempotency` / `req.rawBody` augmentation. */
import type { IdempotencyOptions, RequestIdempotency } from '@webhook-idempotency/core';
import type { Request } from 'express';

/** Options of {@link idempotent}: the one options shape of every adapter, with Express's `req` in the callbacks. */
export type ExpressIdempotencyOptions<Tx = unknown> = IdempotencyOptions<Request, Tx>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `idempotent()` while the handler runs for a claimed delivery: key, attempt, transaction. `undefined` otherwise. */
      idempotency?: RequestIdempotency;
      /** The exact request bytes, kept by `express.json({ verify: saveRawBody })`. */
      rawBody?: Buffer;
    }
  }
}
