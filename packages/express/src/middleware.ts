/** @module `idempotent(options)`: the Express middleware. Translates in, calls the engine, translates out. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createEngine, toRawBody, type HttpRequest } from '@webhook-idempotency/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { captureResponse, sendRecord } from './capture';
import type { IdempotentOptions } from './types';

function toHttpRequest(req: Request): HttpRequest<Request> {
  const rawBody = toRawBody(req.rawBody) ?? (Buffer.isBuffer(req.body) ? req.body : undefined);
  return { method: req.method, url: req.originalUrl, headers: req.headers, rawBody, body: req.body, native: req };
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
export function idempotent<Tx = unknown>(options: IdempotentOptions<Tx>): RequestHandler {
  const engine = createEngine(options);
  return function idempotency(req: Request, res: Response, next: NextFunction): void {
    engine.begin(toHttpRequest(req)).then((decision) => {
      if (decision.action === 'pass') return next();
      if (decision.action === 'respond') return sendRecord(res, decision.response);
      req.idempotency = decision.idempotency;
      captureResponse(res, decision.run, next);
      next();
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
