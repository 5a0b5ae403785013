/**
 * @module Our own thin Express glue over the published API of @node-idempotency/core 1.0.11 (its
 * Express plugin is not served by the registry), following the behaviour that plugin documents:
 * the key from a header, 409 with `Retry-After` while the first request is in flight, 422 on a
 * fingerprint mismatch, replays marked `Idempotent-Replayed: true`, and the response recorded
 * from `res.send` after it was sent. Used only by the benchmark, as the best peer to compare with.
 */
import { Idempotency, IdempotencyError, IdempotencyErrorCodes } from '@node-idempotency/core';
import { MemoryStorageAdapter } from '@node-idempotency/storage-adapter-memory';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function peerMiddleware(): RequestHandler {
  const idempotency = new Idempotency(new MemoryStorageAdapter(), { idempotencyKey: 'x-event-id' });
  return function peerIdempotency(req: Request, res: Response, next: NextFunction): void {
    const request = { headers: req.headers, path: req.path, body: req.body, method: req.method };
    idempotency.onRequest<unknown, unknown>(request).then(
      (stored) => {
        if (stored) {
          const status = (stored.additional?.status as number | undefined) ?? 200;
          res.status(status).set('Idempotent-Replayed', 'true').send(stored.body);
          return;
        }
        const send = res.send;
        res.send = function recorded(this: Response, body?: unknown) {
          res.send = send;
          const result = send.call(this, body);
          void idempotency.onResponse(request, { body, additional: { status: res.statusCode } });
          return result;
        };
        next();
      },
      (error: unknown) => {
        if (!(error instanceof IdempotencyError)) return next(error);
        if (error.code === IdempotencyErrorCodes.REQUEST_IN_PROGRESS)
          res.status(409).set('Retry-After', '1').end();
        else if (error.code === IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH)
          res.status(422).end();
        else res.status(400).end();
      },
    );
  };
}
