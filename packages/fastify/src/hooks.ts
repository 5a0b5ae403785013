/** @module The route hooks the plugin adds: preHandler (begin), onError and onSend (finish or abort). */
import type { HttpRequest, RequestIdempotency } from '@webhook-idempotency/core';
import type { HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import {
  collectBody,
  type Engine,
  needsCollecting,
  type PendingRun,
  toRawBody,
} from '@webhook-idempotency/core/adapter';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Per-request state, on a Symbol decorated with `decorateRequest`. */
export const kState = Symbol('webhook-idempotency');
interface State {
  readonly run: PendingRun;
  error?: unknown;
}
type WithState = FastifyRequest & { [kState]: State | null };

/** The neutral request record of a Fastify request (the raw bytes from a raw-body content-type parser). */
export function toHttpRequest(request: FastifyRequest): HttpRequest<FastifyRequest> {
  const rawBody =
    toRawBody(request.rawBody) ?? (Buffer.isBuffer(request.body) ? request.body : undefined);
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    rawBody,
    body: request.body,
    native: request,
  };
}

function apply(reply: FastifyReply, record: HttpResponseRecord): Buffer {
  reply.code(record.status);
  for (const [name, value] of Object.entries(record.headers)) reply.header(name, value);
  return record.body;
}

/** Fastify's preHandler `done`: called with nothing to go on to the handler, or with an error. */
type Done = (error?: Error) => void;

/**
 * A callback-style preHandler that asks an engine about the request and acts on its decision; a
 * rejected question goes to `done`, so to Fastify's error handling, never unhandled.
 */
export function decisionPreHandler<D>(
  ask: (request: HttpRequest<FastifyRequest>) => Promise<D>,
  act: (decision: D, request: FastifyRequest, reply: FastifyReply, done: Done) => void,
): (request: FastifyRequest, reply: FastifyReply, done: Done) => void {
  return (request, reply, done) => {
    ask(toHttpRequest(request)).then(
      (decision) => act(decision, request, reply, done),
      (error: unknown) => done(error as Error),
    );
  };
}

/**
 * preHandler: asks the engine; answers now (replay, 4xx/503), lets the handler run, or runs it
 * guarded. Callback style, so that the route handler, which Fastify calls from `done`, runs in
 * the claimed run's async context (see `PendingRun.enter`).
 */
export function beginWith(engine: Engine<FastifyRequest>) {
  return decisionPreHandler(
    (request) => engine.begin(request),
    (decision, request, reply, done) => {
      if (decision.action === 'pass') return done();
      if (decision.action === 'respond') return void reply.send(apply(reply, decision.response));
      guard(request, reply, decision.idempotency, decision.run);
      decision.run.enter(done);
    },
  );
}

/** Keeps the run on the request and wires the ways it can end outside onSend. */
function guard(
  request: FastifyRequest,
  reply: FastifyReply,
  idempotency: RequestIdempotency,
  run: PendingRun,
): void {
  request.idempotency = idempotency;
  (request as WithState)[kState] = { run };
  // The guard gave up on the run (transactional deadline): answer now; a later reply.send of the
  // handler is refused by Fastify as a second answer. Without a deadline nothing answers first.
  if (run.expires)
    run.onExpire((answer) => {
      if (!(request as WithState)[kState]) return;
      (request as WithState)[kState] = null;
      if (reply.sent || reply.raw.headersSent) return;
      for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
      void reply.send(apply(reply, answer));
    });
  // onSend takes the state before anything is written; a response that closes (Node closes every
  // response, after it finished or when its connection went first) with the state still here
  // went around onSend (reply.hijack() and reply.raw). One listener per request.
  reply.raw.on('close', () => {
    const state = (request as WithState)[kState];
    // A client that disconnects while the handler runs cancels nothing: only a reply that went
    // out around onSend (hijacked, or ended on reply.raw) counts here.
    if (!state || !reply.sent) return;
    (request as WithState)[kState] = null;
    const raw = reply.raw;
    void state.run.answeredAround(
      raw.writableFinished ? raw.statusCode : undefined,
      'reply.hijack() or reply.raw',
    );
  });
}

/** onError: keeps the handler's error so onSend marks the receipt failed with its text. */
export async function idempotencyOnError(
  request: FastifyRequest,
  _reply: FastifyReply,
  error: unknown,
): Promise<void> {
  const state = (request as WithState)[kState];
  if (state) state.error = error;
}

/** onSend: the payload is serialised; record it, and send it (or the engine's replacement) only after that. */
export async function idempotencyOnSend(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const state = (request as WithState)[kState];
  if (!state) return payload;
  (request as WithState)[kState] = null;
  if (state.error !== undefined) {
    // The store lost the handler's transaction under it: the guard's 503 replaces the error answer.
    const lost = await state.run.abort(state.error);
    if (!lost) return payload;
    for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
    return apply(reply, lost);
  }
  // A serialised payload (a string, bytes) is recorded as it is: no copy, no decoding back.
  let body: Buffer | string;
  try {
    body =
      typeof payload === 'string' || Buffer.isBuffer(payload)
        ? payload
        : await collectBody(payload);
  } catch (error) {
    await state.run.abort(error);
    throw error;
  }
  const replacement = await state.run.finish({
    status: reply.statusCode,
    headers: reply.getHeaders(),
    body,
  });
  if (!replacement) return needsCollecting(payload) ? body : payload;
  for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
  return apply(reply, replacement);
}
