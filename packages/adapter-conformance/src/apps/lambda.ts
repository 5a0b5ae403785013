/**
 * @module `@webhook-idempotency/adapter-conformance/apps/lambda`: the Lambda adapter's registry
 * entries (one per event source) behind a small node:http server that turns each request into
 * that source's event, invokes the handler with a Lambda context and reads its result back the
 * way that source reads it (an ALB with multi-value headers reads only `multiValueHeaders`, …).
 */
import { Buffer } from 'node:buffer';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import {
  type LambdaHttpEvent,
  type LambdaIdempotencyOptions,
  withIdempotency,
} from '@webhook-idempotency/lambda';
import type { Context } from 'aws-lambda';
import { running } from '../server';
import type { AdapterEntry, Answer } from '../types';
import { eventFor, LAMBDA_SOURCES, type LambdaSourceName, lambdaContext } from './lambda-events';

export * from './lambda-events';

/** A Lambda HTTP handler, as the adapter returns it. */
export type LambdaHttpHandler = (event: never, context: Context) => Promise<unknown>;

/** The context the suite's app hands on: the request's headers as sent, and what the guard passed. */
type SuiteContext = Context & { headers?: IncomingHttpHeaders; seen?: unknown };

type Scalar = string | number | boolean;
interface ResultShape {
  statusCode?: number;
  statusDescription?: string;
  headers?: Record<string, Scalar>;
  multiValueHeaders?: Record<string, Scalar[]>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** What the source sends for `result`: status, headers (lists), body bytes. */
export function readResult(source: LambdaSourceName, result: unknown) {
  const v2 = source === 'v2' || source === 'url';
  const shaped =
    typeof result === 'object' && result !== null && 'statusCode' in result
      ? (result as ResultShape)
      : undefined;
  if (v2 && !shaped) {
    const body = typeof result === 'string' ? result : JSON.stringify(result);
    return {
      status: 200,
      headers: { 'content-type': ['application/json'] },
      body: Buffer.from(body),
    };
  }
  if (!shaped || typeof shaped.statusCode !== 'number')
    throw new Error('malformed Lambda proxy response');
  const headers: Record<string, string[]> = {};
  const put = (name: string, values: Scalar[]) =>
    (headers[name.toLowerCase()] = values.map(String));
  const single = source !== 'alb-multi';
  const multi = source === 'v1' || source === 'alb-multi';
  if (single) for (const [name, value] of Object.entries(shaped.headers ?? {})) put(name, [value]);
  if (multi)
    for (const [name, values] of Object.entries(shaped.multiValueHeaders ?? {})) put(name, values);
  if (v2 && shaped.cookies) put('set-cookie', shaped.cookies);
  const body = Buffer.from(shaped.body ?? '', shaped.isBase64Encoded ? 'base64' : 'utf8');
  return { status: shaped.statusCode, headers, body };
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A server that invokes `handler` with each request as `source`'s event; a thrown error is Lambda's 502. */
export function lambdaServer(source: LambdaSourceName, handler: LambdaHttpHandler): Server {
  return createServer((incoming: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const [path = '/', rawQuery = ''] = (incoming.url ?? '/').split(/\?(.*)/s);
      const headers: Array<[string, string]> = [];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2)
        headers.push([incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!]);
      const body = await readBody(incoming);
      const event = eventFor(source, {
        method: incoming.method ?? 'GET',
        path,
        rawQuery,
        headers,
        body,
      });
      let answer: ReturnType<typeof readResult>;
      try {
        const context: SuiteContext = { ...lambdaContext(), headers: incoming.headers };
        answer = readResult(source, await handler(event as never, context));
      } catch {
        answer = {
          status: 502,
          headers: {},
          body: Buffer.from('{"message":"Internal server error"}'),
        };
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })().catch(() => res.destroy());
  });
}

/** A neutral answer as `source`'s result. */
export function resultOf(source: LambdaSourceName, answer: Answer): ResultShape {
  if (
    answer.kind !== 'json' &&
    answer.kind !== 'text' &&
    answer.kind !== 'buffer' &&
    answer.kind !== 'empty'
  )
    throw new Error(`a Lambda handler cannot answer with ${answer.kind}`);
  const lists: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(answer.headers ?? {}))
    lists[name] = typeof value === 'string' ? [value] : [...value];
  if (answer.kind === 'json') lists['content-type'] = ['application/json; charset=utf-8'];
  const bytes =
    answer.kind === 'json'
      ? Buffer.from(JSON.stringify(answer.value))
      : answer.kind === 'empty'
        ? Buffer.alloc(0)
        : Buffer.from(answer.value);
  const base64 = answer.kind === 'buffer';
  const body = bytes.toString(base64 ? 'base64' : 'utf8');
  const statusCode = answer.status ?? 200;
  const fields = { statusCode, body, isBase64Encoded: base64 };
  const entries = Object.entries(lists);
  const pick = (test: (values: string[]) => boolean, value: (values: string[]) => string) =>
    Object.fromEntries(entries.filter(([, v]) => test(v)).map(([n, v]) => [n, value(v)]));
  const all = () => true;
  switch (source) {
    case 'alb-multi':
      return { ...fields, multiValueHeaders: lists };
    case 'alb':
      // One value per name: a repeated header sends its last value.
      return { ...fields, headers: pick(all, (v) => v.at(-1) ?? '') };
    case 'v1': {
      const multiValueHeaders = Object.fromEntries(entries.filter(([, v]) => v.length > 1));
      return {
        ...fields,
        headers: pick(
          (v) => v.length === 1,
          (v) => v[0]!,
        ),
        multiValueHeaders,
      };
    }
    default: {
      const headers = pick(all, (v) => v.join(', '));
      const cookies = lists['set-cookie'];
      delete headers['set-cookie'];
      return { ...fields, headers, ...(cookies ? { cookies } : {}) };
    }
  }
}

const NAMES: Record<LambdaSourceName, string> = {
  v1: 'API Gateway REST (payload 1.0)',
  v2: 'API Gateway HTTP API (payload 2.0)',
  url: 'Function URL',
  alb: 'ALB',
  'alb-multi': 'ALB with multi-value headers',
};

/** withIdempotency guarding POST /hook, invoked with `source`'s events. */
export function lambdaApp(source: LambdaSourceName): AdapterEntry {
  return {
    name: `lambda (${NAMES[source]})`,
    capabilities: {
      writeAndEnd: false,
      streamBody: false,
      socket: false,
      errorStatus: 502,
      repeatedHeaders: source !== 'alb',
    },
    async start(options, handler, observe) {
      const guarded = withIdempotency(
        options as unknown as LambdaIdempotencyOptions,
        async (_event: LambdaHttpEvent, idempotency, context: SuiteContext) => {
          context.seen = idempotency;
          const answer = await handler({
            headers: context.headers ?? {},
            idempotency,
            get socket(): never {
              throw new Error('a Lambda handler has no node:net socket');
            },
          });
          return resultOf(source, answer) as never;
        },
      );
      const server = lambdaServer(source, async (event, context: SuiteContext) => {
        try {
          return await guarded(event, context);
        } finally {
          observe({ headers: context.headers ?? {}, idempotency: context.seen });
        }
      });
      return running(server.listen(0, '127.0.0.1'));
    },
  };
}

/** One entry per event source: the first with every preset, the others with a sample of them. */
export const lambdaApps: readonly AdapterEntry[] = LAMBDA_SOURCES.map((source, index) => ({
  ...lambdaApp(source),
  presets: index === 0 ? 'every' : 'sample',
}));
