/**
 * @module Answers in the result shape of each event source: the handler's result read into the
 * record the engine stores, and a record (a replay, the guard's own answer) written out as the
 * result the event's source expects.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import type { CapturedResponse, HttpResponseRecord } from '@webhook-idempotency/core/adapter';
import type {
  ALBResult,
  APIGatewayProxyResult,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import type { EventSource, SourcedEvent } from './events';

/**
 * A result in its event source's shape: API Gateway REST's `APIGatewayProxyResult`, HTTP API's
 * and Function URLs' structured `APIGatewayProxyStructuredResultV2`, or an ALB's `ALBResult`.
 * What a guarded handler returns.
 */
export type LambdaHttpResult =
  | APIGatewayProxyResult
  | APIGatewayProxyStructuredResultV2
  | ALBResult;

/**
 * What your handler may return: a {@link LambdaHttpResult}, or for payload 2.0 (HTTP API,
 * Function URLs) any JSON value, which API Gateway answers as a 200 `application/json` (a string
 * as it is, anything else as its JSON).
 */
export type LambdaHandlerResult =
  | LambdaHttpResult
  | APIGatewayProxyResultV2<Record<string, unknown>>;

/** The handler's result as recorded, and as sent: its own object, or payload 2.0's inferred answer spelled out. */
export interface CapturedResult {
  readonly captured: CapturedResponse;
  readonly sent: LambdaHttpResult;
}

/** A header value as the results allow it. */
type Scalar = boolean | number | string;

interface StructuredResult {
  readonly statusCode: number;
  readonly headers?: Readonly<Record<string, Scalar>> | null;
  readonly multiValueHeaders?: Readonly<Record<string, readonly Scalar[]>> | null;
  readonly cookies?: readonly string[] | null;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the handler returned, named for an error. */
const kindOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;

/** Payload 2.0's inferred answer: a result without `statusCode` is a 200 JSON body (a string as it is). */
function inferred(result: unknown): CapturedResult {
  const body = (typeof result === 'string' ? result : JSON.stringify(result)) ?? '';
  const headers = { 'content-type': 'application/json' };
  return {
    captured: { status: 200, headers, body: Buffer.from(body, 'utf8') },
    sent: { statusCode: 200, headers, body, isBase64Encoded: false },
  };
}

/**
 * The handler's result as the engine records it (and as it is sent): status, headers (`headers`, then
 * `multiValueHeaders` over them, as API Gateway merges them; `cookies` as `set-cookie`) and the
 * body's bytes.
 * @throws {TypeError} a result the event's source would refuse (no numeric `statusCode` outside
 *   payload 2.0): the run fails loudly, as API Gateway would answer 502.
 */
export function captureResult(result: unknown, source: EventSource): CapturedResult {
  if (source === 'v2' && !(isObject(result) && 'statusCode' in result)) return inferred(result);
  if (!isObject(result) || typeof result.statusCode !== 'number')
    throw new TypeError(
      `the handler returned ${kindOf(result)}${isObject(result) ? ' without a numeric statusCode' : ''}, not a Lambda HTTP result`,
    );
  const structured = result as unknown as StructuredResult;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(structured.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  for (const [name, values] of Object.entries(structured.multiValueHeaders ?? {}))
    headers[name.toLowerCase()] = values.map(String);
  if (structured.cookies && structured.cookies.length > 0)
    headers['set-cookie'] = [...structured.cookies];
  const body = structured.body ?? '';
  const bytes = Buffer.from(body, structured.isBase64Encoded ? 'base64' : 'utf8');
  const captured = { status: structured.statusCode, headers, body: bytes };
  return { captured, sent: result as LambdaHttpResult };
}

/** The body as the results carry it: text when it is UTF-8 and not content-encoded, else base64. */
function bodyFields(record: HttpResponseRecord): { body: string; isBase64Encoded: boolean } {
  const encoded = record.headers['content-encoding'] !== undefined;
  if (!encoded && isUtf8(record.body))
    return { body: record.body.toString('utf8'), isBase64Encoded: false };
  return { body: record.body.toString('base64'), isBase64Encoded: true };
}

const list = (value: string | readonly string[]): string[] =>
  typeof value === 'string' ? [value] : [...value];

/** Payload 2.0: one value per header (joined by `, `), `set-cookie` as `cookies`. */
function v2Result(record: HttpResponseRecord): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(record.headers)) {
    if (name.toLowerCase() === 'set-cookie') cookies = list(value);
    else headers[name] = list(value).join(', ');
  }
  return {
    statusCode: record.status,
    headers,
    ...(cookies ? { cookies } : {}),
    ...bodyFields(record),
  };
}

/** REST API: single values in `headers`, repeated ones in `multiValueHeaders`. */
function v1Result(record: HttpResponseRecord): APIGatewayProxyResult {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (typeof value === 'string') headers[name] = value;
    else multiValueHeaders[name] = [...value];
  }
  const repeated = Object.keys(multiValueHeaders).length > 0;
  return {
    statusCode: record.status,
    headers,
    ...(repeated ? { multiValueHeaders } : {}),
    ...bodyFields(record),
  };
}

/**
 * ALB: `multiValueHeaders` only when the target group has multi-value headers on (the event
 * carries `multiValueHeaders`; the load balancer then reads nothing else), else `headers` only.
 */
function albResult(record: HttpResponseRecord, multiValue: boolean): ALBResult {
  const statusDescription = `${record.status} ${STATUS_CODES[record.status] ?? ''}`.trim();
  const entries = Object.entries(record.headers);
  const headerFields = multiValue
    ? { multiValueHeaders: Object.fromEntries(entries.map(([n, v]) => [n, list(v)])) }
    : { headers: Object.fromEntries(entries.map(([n, v]) => [n, list(v).join(', ')])) };
  return { statusCode: record.status, statusDescription, ...headerFields, ...bodyFields(record) };
}

/** `record` as the result the event's source expects. */
export function renderResult(record: HttpResponseRecord, sourced: SourcedEvent): LambdaHttpResult {
  switch (sourced.source) {
    case 'v2':
      return v2Result(record);
    case 'v1':
      return v1Result(record);
    case 'alb':
      return albResult(record, sourced.event.multiValueHeaders != null);
  }
}
