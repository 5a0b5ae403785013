/** @module The route hooks the plugin adds: preHandler (begin), onError and onSend (finish or abort). */
import {
  collectBody,
  needsCollecting,
  responseNotCaptured,
  toRawBody,
  type Engine,
  type HttpRequest,
  type HttpResponseRecord,
  type PendingRun,
} from '@webhook-idempotency/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Per-request state, on a Symbol decorated with `decorateRequest`. */
export const kState = Symbol('webhook-idempotency');
interface State {
  readonly run: PendingRun;
  error?: unknown;
}
type WithState = FastifyRequest & { [kState]: State | null };

function toHttpRequest(request: FastifyRequest): HttpRequest<FastifyRequest> {
  const rawBody = toRawBody(request.rawBody) ?? (Buffer.isBuffer(request.body) ? request.body : undefined);
  return { method: request.method, url: request.url, headers: request.headers, rawBody, body: request.body, native: request };
}

function apply(reply: FastifyReply, record: HttpResponseRecord): Buffer {
  reply.code(record.status);
  for (const [name, value] of Object.entries(record.headers)) reply.header(name, value);
  return record.body;
}

/** preHandler: asks the engine; answers now (replay, 4xx/503), lets the handler run, or runs it guarded. */
export function beginWith(engine: Engine<FastifyRequest>) {
  return async function idempotencyPreHandler(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const decision = await engine.begin(toHttpRequest(request));
    if (decision.action === 'pass') return undefined;
    if (decision.action === 'respond') return reply.send(apply(reply, decision.response));
    request.idempotency = decision.idempotency;
    (request as WithState)[kState] = { run: decision.run };
    // onSend takes the state before anything is written; a response that finishes with the state
    // still here went around onSend (reply.hijack() and reply.raw).
    reply.raw.once('finish', () => {
      const state = (request as WithState)[kState];
      if (!state) return;
      (request as WithState)[kState] = null;
      void state.run.abort(responseNotCaptured('reply.hijack() or reply.raw'));
    });
    return undefined;
  };
}

/** onError: keeps the handler's error so onSend marks the receipt failed with its text. */
export async function idempotencyOnError(request: FastifyRequest, _reply: FastifyReply, error: unknown): Promise<void> {
  const state = (request as WithState)[kState];
  if (state) state.error = error;
}

/** onSend: the payload is serialised; record it, and send it (or the engine's replacement) only after that. */
export async function idempotencyOnSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const state = (request as WithState)[kState];
  if (!state) return payload;
  (request as WithState)[kState] = null;
  if (state.error !== undefined) {
    await state.run.abort(state.error);
    return payload;
  }
  let body: Buffer;
  try {
    body = await collectBody(payload);
  } catch (error) {
    await state.run.abort(error);
    throw error;
  }
  const replacement = await state.run.finish({ status: reply.statusCode, headers: reply.getHeaders(), body });
  if (!replacement) return needsCollecting(payload) ? body : payload;
  for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
  return apply(reply, replacement);
}
