/** @module `idempotent(options)`: the Express middleware. Translates in, calls the engine, translates out. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRequest } from '@webhook-idempotency/core';
import {
  abortHeld,
  createEngine,
  holdResponse,
  sendRecord,
  toRawBody,
} from '@webhook-idempotency/core/adapter';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { ExpressIdempotencyOptions } from './types';

/** The neutral request record of an Express request (the raw bytes from `express.raw()` or `saveRawBody`). */
export function toHttpRequest(req: Request): HttpRequest<Request> {
  const rawBody = toRawBody(req.rawBody) ?? (Buffer.isBuffer(req.body) ? req.body : undefined);
  return {
    method: req.method,
    url: req.originalUrl,
    headers: req.headers,
    rawBody,
    body: req.body,
    native: req,
  };
}

/**
 * Answers every retry of a webhook from its receipt: the first delivery runs the handler, each
 * duplicate gets the stored answer with `Idempotent-Replayed: true`. Use it with `app.use(...)`
 * or on one route, after a body parser that keeps the raw bytes (`express.raw()`, or
 * `express.json({ verify: saveRawBody })`). Errors go to `next(err)`.
 * @throws {ConfigError} at construction, naming an invalid option.
 * @example
 * app.post('/webhooks/github', express.raw({ type: '*\/*' }),
 *   idempotent({ store, provider: 'github', key: (req) => req.get('x-github-delivery') }),
 *   (req, res) => res.json({ ok: true }));
 * @see docs/adapters/express.md
 */
export function idempotent<Tx = unknown>(options: ExpressIdempotencyOptions<Tx>): RequestHandler {
  const engine = createEngine(options);
  const { maxResponseBytes } = engine.config;
  return function idempotency(req: Request, res: Response, next: NextFunction): void {
    engine.begin(toHttpRequest(req)).then((decision) => {
      if (decision.action === 'pass') return next();
      if (decision.action === 'respond') {
        // A refused head (the answer already sent by other middleware) goes to Express, not unhandled.
        try {
          return sendRecord(res, decision.response);
        } catch (error) {
          return next(error);
        }
      }
      req.idempotency = decision.idempotency;
      holdResponse(res, decision.run, { maxResponseBytes, onError: next });
      decision.run.enter(next);
    }, next);
  };
}

/**
 * A `verify` callback for `express.json()` / `express.text()` / `express.urlencoded()` that keeps
 * the exact request bytes on `req.rawBody` for signatures and fingerprints.
 * @example
 * app.use(express.json({ verify: saveRawBody }));
 */
export function saveRawBody(req: IncomingMessage, _res: ServerResponse, buffer: Buffer): void {
  (req as Request).rawBody = buffer;
}

/**
 * Error middleware that hands the guard the handler's real error: the receipt is marked `failed`
 * with its text, and whatever your error handler answers next goes out unchanged and is never
 * stored. Mount it after your routes and before your own error handler. Without it the guard
 * judges by the answer alone: a non-2xx answer fails the receipt, but an error handler that
 * answers 2xx (as "always 200" protocols such as Payme's want) would be stored as a success.
 * @example
 * app.post('/payme', express.json(), idempotent({ store, preset }), handler);
 * app.use(idempotencyErrors());
 * app.use((err, req, res, next) => res.status(200).json({ error: { code: -32400 } }));
 */
export function idempotencyErrors(): ErrorRequestHandler {
  return function idempotencyError(
    error: unknown,
    _req: Request,
    res: Response,
    next: NextFunction,
  ): void {
    abortHeld(res, error).then(
      // The store lost the handler's transaction under it: its 503 went out, not your error handler's answer.
      (answered) => answered || next(error),
      () => next(error),
    );
  };
}
