/**
 * @module The interceptor `@Idempotent()` applies, and the claim it makes when Nest calls the
 * route method (after guards and pipes): translates the Nest request in, calls the engine, holds
 * the answer until it is recorded.
 */
import type { ServerResponse } from 'node:http';
import type { HttpRequest, RequestIdempotency } from '@webhook-idempotency/core';
import {
  abortHeld,
  answerNow,
  type Engine,
  holdResponse,
  toRawBody,
} from '@webhook-idempotency/core/adapter';
import {
  type CallHandler,
  type ExceptionFilter,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { ApplicationConfig, BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core';
import { catchError, from, mergeMap, type Observable, throwError } from 'rxjs';
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

/** The metadata key `@Catch(...types)` sets on a filter class (none: it catches everything). */
const CATCH_METADATA = '__filterCatchExceptions__';

/** True when `filter`'s `@Catch()` covers `error`, as Nest decides for a route's filters. */
function catches(filter: ExceptionFilter, error: unknown): boolean {
  const read = (Reflect as { getMetadata?: (key: string, target: object) => unknown }).getMetadata;
  const types = (read?.(CATCH_METADATA, filter.constructor) ?? []) as Array<
    abstract new (
      ...args: never[]
    ) => unknown
  >;
  return types.length === 0 || types.some((type) => error instanceof type);
}

/** One guarded request: set up by the interceptor, claimed by the route method's wrapper. */
class Slot {
  constructor(
    private readonly engine: Engine<NestRequest>,
    private readonly req: NestRequest,
    private readonly raw: ServerResponse,
    private readonly fail: (error: unknown) => void,
  ) {}

  /**
   * Claims, then calls the route method with the run's value, inside the run's async context.
   * A replay or the engine's own answer is sent at once and the method does not run; what Nest
   * writes after it is dropped.
   */
  async invoke(method: (idempotency: RequestIdempotency | undefined) => unknown): Promise<unknown> {
    const decision = await this.engine.begin(toHttpRequest(this.req));
    if (decision.action === 'pass') return method(undefined);
    if (decision.action === 'respond') {
      answerNow(this.raw, decision.response, this.fail);
      return undefined;
    }
    const { run, idempotency } = decision;
    this.req.idempotency = idempotency;
    const { maxResponseBytes } = this.engine.config;
    holdResponse(this.raw, run, { maxResponseBytes, onError: this.fail });
    return run.enter(() => method(idempotency));
  }

  /**
   * The method (or a pipe after the claim, or an interceptor inside this one) threw: the receipt
   * is `failed`, and the filters' answer goes out unrecorded; when the store lost the
   * transaction under the method, the guard's 503 instead, whatever the filters write.
   */
  async abort(error: unknown): Promise<void> {
    await abortHeld(this.raw, error);
  }
}

/** Where the interceptor leaves a request's slot for the route method's wrapper: on the request itself, no WeakMap entry. */
const kSlot = Symbol('webhook-idempotency.slot');
type Slotted = { [kSlot]?: Slot };

/**
 * Calls `method` for the request `req` of a guarded route: claimed first when the interceptor set
 * the request up, directly otherwise (a route used outside HTTP). Used by `@Idempotent()`'s wrapper.
 */
export function invokeGuarded(
  req: unknown,
  method: (idempotency: RequestIdempotency | undefined) => unknown,
): unknown {
  const slot = typeof req === 'object' && req !== null ? (req as Slotted)[kSlot] : undefined;
  return slot ? slot.invoke(method) : method(undefined);
}

/**
 * Guards one route. Guards have run when it starts; the claim waits for the pipes (it is made when
 * Nest calls the route method), so a request a guard or a pipe refuses leaves no receipt. A replay
 * or the engine's own answer (400/401/409/422/503) replaces whatever Nest sends; a claimed run's
 * answer is held until the receipt is written. A handler error (an `HttpException` too) marks the
 * receipt `failed` and goes on to Nest's exception filters, whose answer is never stored.
 * Applied by `@Idempotent()`.
 */
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly registry: IdempotencyRegistry,
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: ApplicationConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const engine = this.registry.engineFor(context.getHandler());
    const http = context.switchToHttp();
    const req = http.getRequest<NestRequest>();
    const fail = (error: unknown) => this.answerError(error, context);
    const slot = new Slot(engine, req, rawResponse(http.getResponse()), fail);
    (req as Slotted)[kSlot] = slot;
    return next
      .handle()
      .pipe(
        catchError((error: unknown) =>
          from(slot.abort(error)).pipe(mergeMap(() => throwError(() => error))),
        ),
      );
  }

  /**
   * An answer that could not be recorded (over `maxResponseBytes`, or the store failed) once Nest
   * had handed it over: answered by the application's global exception filters
   * (`app.useGlobalFilters()`, `APP_FILTER`) as an error of the route would be, the last
   * registered one whose `@Catch()` matches first, else by Nest's own base filter (its 500).
   */
  private answerError(error: unknown, context: ExecutionContext): void {
    const filters = [...this.config.getGlobalFilters()].reverse();
    const filter = filters.find((candidate) => catches(candidate, error));
    if (filter) filter.catch(error, context);
    else new BaseExceptionFilter(this.adapterHost.httpAdapter).catch(error, context);
  }
}

Inject(IdempotencyRegistry)(IdempotencyInterceptor, undefined, 0);
Inject(HttpAdapterHost)(IdempotencyInterceptor, undefined, 1);
Inject(ApplicationConfig)(IdempotencyInterceptor, undefined, 2);
Injectable()(IdempotencyInterceptor);
