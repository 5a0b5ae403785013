/** @module The interceptor `@Idempotent()` applies: translates the Nest request in, calls the engine, holds the answer until it is recorded. */
import type { ServerResponse } from 'node:http';
import type { HttpRequest } from '@webhook-idempotency/core';
import { toRawBody } from '@webhook-idempotency/core/adapter';
import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { HeldResponse } from './capture';
import { IdempotencyRegistry } from './registry';
import type { NestRequest } from './types';

function toHttpRequest(req: NestRequest): HttpRequest<NestRequest> {
  const rawBody = toRawBody(req.rawBody) ?? (Buffer.isBuffer(req.body) ? req.body : undefined);
  return {
    method: req.method,
    url: req.originalUrl ?? req.url,
    headers: req.headers,
    rawBody,
    body: req.body,
    native: req,
  };
}

/** The node:http response under the platform's: Express's `res` is one, Fastify's `reply` holds it as `raw`. */
function rawResponse(res: { raw?: ServerResponse } & Partial<ServerResponse>): ServerResponse {
  return res.raw ?? (res as ServerResponse);
}

/**
 * Guards one route: a replay or the engine's own answer (400/401/409/422/503) replaces whatever
 * Nest sends, without running the handler; a claimed run's answer is held until the receipt is
 * written. A handler error (an `HttpException` too) marks the receipt `failed` and goes on to
 * Nest's exception filters, so their answer is never stored. Applied by `@Idempotent()`.
 */
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly registry: IdempotencyRegistry,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const engine = this.registry.engineFor(context.getHandler());
    const http = context.switchToHttp();
    const req = http.getRequest<NestRequest>();
    const raw = rawResponse(http.getResponse());
    const fail = (error: unknown) => this.answerError(error, context);
    return from(engine.begin(toHttpRequest(req))).pipe(
      mergeMap((decision) => {
        if (decision.action === 'pass') return next.handle();
        if (decision.action === 'respond') {
          new HeldResponse(raw, () => Promise.resolve(decision.response), fail);
          return of(undefined);
        }
        const { run } = decision;
        req.idempotency = decision.idempotency;
        const held = new HeldResponse(raw, (captured) => run.finish(captured), fail);
        run.onExpire((answer) => held.expire(answer));
        const handled = new Observable<unknown>((subscriber) =>
          run.enter(() => next.handle().subscribe(subscriber)),
        );
        return handled.pipe(
          catchError((error: unknown) => {
            held.release();
            return from(run.abort(error)).pipe(mergeMap(() => throwError(() => error)));
          }),
        );
      }),
    );
  }

  /** An answer that could not be recorded (over `maxResponseBytes`) after Nest sent it: Nest's own 500. */
  private answerError(error: unknown, context: ExecutionContext): void {
    new BaseExceptionFilter(this.adapterHost.httpAdapter).catch(error, context);
  }
}

Inject(IdempotencyRegistry)(IdempotencyInterceptor, undefined, 0);
Inject(HttpAdapterHost)(IdempotencyInterceptor, undefined, 1);
Injectable()(IdempotencyInterceptor);
