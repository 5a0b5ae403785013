/**
 * @module HTTP requests as the events AWS hands a Lambda function, built from the documented
 * shapes of each source (API Gateway REST payload 1.0, HTTP API payload 2.0, Function URLs, ALB
 * target groups with and without multi-value headers), and their results read back as the
 * source would read them. Exported by `./apps/lambda` for the adapter's own tests.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import type {
  ALBEvent,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  Context,
  LambdaFunctionURLEvent,
} from 'aws-lambda';

/** The sources a request is shaped for: `url` is a Function URL, `alb-multi` an ALB with multi-value headers on. */
export type LambdaSourceName = 'v1' | 'v2' | 'url' | 'alb' | 'alb-multi';

/** Every source. */
export const LAMBDA_SOURCES: readonly LambdaSourceName[] = ['v1', 'v2', 'url', 'alb', 'alb-multi'];

/** A request as sent: headers in their own casing and order, the query as sent (percent-encoded). */
export interface PlainRequest {
  readonly method: string;
  readonly path: string;
  /** Without the `?`. */
  readonly rawQuery?: string;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: Buffer | string;
}

const TEXT = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+json)/i;

/** Whether the sources would base64-encode the body: not a text type, or not UTF-8. */
function binary(headers: ReadonlyArray<readonly [string, string]>, body: Buffer): boolean {
  const type = headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  return !TEXT.test(type) || !isUtf8(body) || headers.some(([n]) => /^content-encoding$/i.test(n));
}

type Lists = Record<string, string[]>;

function lists(pairs: ReadonlyArray<readonly [string, string]>, lower: boolean): Lists {
  const out: Lists = {};
  for (const [name, value] of pairs) {
    const key = lower ? name.toLowerCase() : name;
    out[key] = [...(out[key] ?? []), value];
  }
  return out;
}
const last = (from: Lists) =>
  Object.fromEntries(Object.entries(from).map(([name, values]) => [name, values.at(-1) ?? '']));
const joined = (from: Lists) =>
  Object.fromEntries(Object.entries(from).map(([name, values]) => [name, values.join(',')]));
const orNull = <T extends object>(value: T): T | null =>
  Object.keys(value).length === 0 ? null : value;

/** The query's pairs: decoded (`decode`), as API Gateway hands them, or as sent, as an ALB does. */
function queryPairs(raw: string, decode: boolean): Array<[string, string]> {
  if (raw === '') return [];
  return raw.split('&').map((pair) => {
    const [name = '', value = ''] = pair.split('=');
    const d = (s: string) => (decode ? decodeURIComponent(s.replace(/\+/g, ' ')) : s);
    return [d(name), d(value)];
  });
}

const REQUEST_ID = 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef';

function bodyFields(request: PlainRequest) {
  const bytes = Buffer.from(request.body ?? '');
  const headers = request.headers ?? [];
  if (bytes.length === 0) return { body: null, isBase64Encoded: false };
  const base64 = binary(headers, bytes);
  return { body: bytes.toString(base64 ? 'base64' : 'utf8'), isBase64Encoded: base64 };
}

/** API Gateway REST API, payload 1.0 (the proxy integration's documented input). */
export function v1Event(request: PlainRequest): APIGatewayProxyEvent {
  const headers = request.headers ?? [];
  const multiValueHeaders = lists(headers, false);
  const query = lists(queryPairs(request.rawQuery ?? '', true), false);
  const proxy = request.path.replace(/^\//, '');
  return {
    resource: '/{proxy+}',
    path: request.path,
    httpMethod: request.method,
    headers: last(multiValueHeaders),
    multiValueHeaders,
    queryStringParameters: orNull(last(query)),
    multiValueQueryStringParameters: orNull(query),
    pathParameters: { proxy },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: '1234567890',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      identity: { sourceIp: '127.0.0.1', userAgent: 'Custom User Agent String' },
      path: `/prod${request.path}`,
      stage: 'prod',
      requestId: REQUEST_ID,
      requestTimeEpoch: 1428582896000,
      resourceId: '123456',
      resourcePath: '/{proxy+}',
    } as unknown as APIGatewayProxyEvent['requestContext'],
    ...bodyFields(request),
  };
}

/** HTTP API payload 2.0 (`url`: a Function URL's, the same format on its own domain). */
export function v2Event(request: PlainRequest, url = false): APIGatewayProxyEventV2 {
  const all = request.headers ?? [];
  const cookies = all
    .filter(([name]) => name.toLowerCase() === 'cookie')
    .flatMap(([, value]) => value.split(/;\s*/));
  const headers = joined(
    lists(
      all.filter(([n]) => n.toLowerCase() !== 'cookie'),
      true,
    ),
  );
  const rawQueryString = request.rawQuery ?? '';
  const query = joined(lists(queryPairs(rawQueryString, true), false));
  const domainName = url
    ? 'abcdefg.lambda-url.us-east-1.on.aws'
    : 'id.execute-api.us-east-1.amazonaws.com';
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: url ? 'anonymous' : '123456789012',
      apiId: url ? 'abcdefg' : 'api-id',
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.1',
        userAgent: headers['user-agent'] ?? 'agent',
      },
      requestId: REQUEST_ID,
      routeKey: '$default',
      stage: '$default',
      time: '12/Mar/2020:19:03:58 +0000',
      timeEpoch: 1583348638390,
    },
    ...bodyFields(request),
  } as APIGatewayProxyEventV2;
  return url ? (event as LambdaFunctionURLEvent as APIGatewayProxyEventV2) : event;
}

/** An ALB target group's event: multi-value headers (and query) on or off; the query as sent. */
export function albEvent(request: PlainRequest, multiValue: boolean): ALBEvent {
  const headerLists = lists(request.headers ?? [], true);
  const query = lists(queryPairs(request.rawQuery ?? '', false), false);
  const fields = multiValue
    ? { multiValueHeaders: headerLists, multiValueQueryStringParameters: query }
    : { headers: last(headerLists), queryStringParameters: last(query) };
  return {
    requestContext: {
      elb: {
        targetGroupArn:
          'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/lambda-279XGJDqGZ5rsrHC2Fjr/49e9d65c45c6791a',
      },
    },
    httpMethod: request.method,
    path: request.path,
    ...fields,
    ...bodyFields(request),
  };
}

/** `request` as `source`'s event. */
export function eventFor(source: LambdaSourceName, request: PlainRequest) {
  switch (source) {
    case 'v1':
      return v1Event(request);
    case 'v2':
      return v2Event(request);
    case 'url':
      return v2Event(request, true);
    case 'alb':
      return albEvent(request, false);
    case 'alb-multi':
      return albEvent(request, true);
  }
}

/** A Lambda context whose remaining time counts down from `timeoutMs` (defaults to 30 s). */
export function lambdaContext(timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'webhook',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:webhook',
    memoryLimitInMB: '128',
    awsRequestId: REQUEST_ID,
    logGroupName: '/aws/lambda/webhook',
    logStreamName: '2026/12/06/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
