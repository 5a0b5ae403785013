/**
 * The adapter on the sample events AWS documents for each source, invoked as Lambda would: what
 * the callbacks see (lower-cased headers in every casing the sources use, path and query, the
 * exact bytes), the replay in each source's result shape, and the events it refuses.
 */
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { lambdaContext } from '@webhook-idempotency/adapter-conformance/apps/lambda';
import { InMemoryStore } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  bodyOf,
  type LambdaHttpEvent,
  type LambdaRequest,
  UnsupportedEventError,
  withIdempotency,
} from '../src';
import {
  albEvent,
  albMultiEvent,
  BODY,
  functionUrlEvent,
  httpApiEvent,
  otherEvents,
  restEvent,
} from './fixtures/samples';

const key = (request: LambdaRequest) => request.headers['x-github-delivery'];
const ok = () => ({
  statusCode: 201,
  headers: { 'Content-Type': 'application/json', 'X-Trace': 't1' },
  multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
  body: '{"ok":true}',
});

describe('the documented sample events', () => {
  const samples: ReadonlyArray<readonly [string, () => LambdaHttpEvent, string, string]> = [
    ['REST API (payload 1.0)', restEvent, 'rest-1', '/webhooks/github?q=a%20b%26c&tag=1&tag=2'],
    ['HTTP API (payload 2.0)', httpApiEvent, 'v2-1', '/webhooks/github?q=a%20b%26c&tag=1&tag=2'],
    ['Function URL', functionUrlEvent, 'url-1', '/webhooks/github'],
    ['ALB', albEvent, 'alb-1', '/webhooks/github?q=a%20b%26c&tag=2'],
    [
      'ALB, multi-value headers',
      albMultiEvent,
      'alb-multi-1',
      '/webhooks/github?q=a%20b%26c&tag=1&tag=2',
    ],
  ];

  it.each(samples)(
    '%s: the callbacks see the key, the path and query and the exact bytes',
    async (_name, make, id, url) => {
      const seen: LambdaRequest[] = [];
      const handler = withIdempotency(
        {
          store: new InMemoryStore(),
          provider: 'github',
          key: (request) => {
            seen.push(request);
            return key(request);
          },
        },
        ok,
      );
      expect((await handler(make(), lambdaContext())).statusCode).toBe(201);
      expect(seen[0]).toMatchObject({ method: 'POST', url });
      expect(seen[0]?.headers['x-github-delivery']).toBe(id);
      expect(seen[0]?.headers['content-type']).toBe('application/json');
      expect(seen[0]?.rawBody.toString()).toBe(BODY);
      expect(bodyOf(make()).toString()).toBe(BODY);
    },
  );

  it('repeated headers and cookies read as Node joins them, from every source', async () => {
    const tags: unknown[] = [];
    const handler = withIdempotency(
      {
        store: new InMemoryStore(),
        provider: 'github',
        key: (request) => {
          tags.push([request.headers['x-event-tag'], request.headers.cookie]);
          return key(request);
        },
      },
      ok,
    );
    for (const make of [restEvent, httpApiEvent, albEvent, albMultiEvent])
      await handler(make(), lambdaContext());
    expect(tags).toEqual([
      ['a, b', undefined],
      ['a,b', 'cookie1=one; cookie2=two'],
      ['b', undefined],
      ['a, b', 'cookie1=one; cookie2=two'],
    ]);
  });

  it('REST API: a replay carries single headers in `headers`, repeated ones in `multiValueHeaders`', async () => {
    const handler = withIdempotency(
      { store: new InMemoryStore(), provider: 'github', key },
      () => ({
        statusCode: 200,
        multiValueHeaders: { Link: ['</a>; rel="a"', '</b>; rel="b"'] },
        headers: { 'X-Trace': 't1' },
        body: '{"ok":true}',
      }),
    );
    const first = await handler(restEvent(), lambdaContext());
    expect(first).toMatchObject({ statusCode: 200, body: '{"ok":true}' });
    const again = await handler(restEvent(), lambdaContext());
    expect(again).toEqual({
      statusCode: 200,
      headers: { 'x-trace': 't1', 'Idempotent-Replayed': 'true' },
      multiValueHeaders: { link: ['</a>; rel="a"', '</b>; rel="b"'] },
      body: '{"ok":true}',
      isBase64Encoded: false,
    });
  });

  it('HTTP API: the replay has `headers` and no cookies; a plain JSON result is a 200 application/json', async () => {
    const handler = withIdempotency(
      { store: new InMemoryStore(), provider: 'github', key },
      () => ({
        received: true,
      }),
    );
    // The inferred answer spelled out: the same on the wire.
    expect(await handler(httpApiEvent(), lambdaContext())).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"received":true}',
      isBase64Encoded: false,
    });
    expect(await handler(httpApiEvent(), lambdaContext())).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' },
      body: '{"received":true}',
      isBase64Encoded: false,
    });
  });

  it('ALB: `statusDescription`, and the header map the target group uses', async () => {
    const handler = withIdempotency({ store: new InMemoryStore(), provider: 'github', key }, ok);
    await handler(albEvent(), lambdaContext());
    expect(await handler(albEvent(), lambdaContext())).toEqual({
      statusCode: 201,
      statusDescription: '201 Created',
      headers: {
        'content-type': 'application/json',
        'x-trace': 't1',
        'Idempotent-Replayed': 'true',
      },
      body: '{"ok":true}',
      isBase64Encoded: false,
    });
    await handler(albMultiEvent(), lambdaContext());
    const multi = await handler(albMultiEvent(), lambdaContext());
    expect(multi).toMatchObject({
      statusDescription: '201 Created',
      multiValueHeaders: { 'x-trace': ['t1'], 'Idempotent-Replayed': ['true'] },
    });
    expect(multi).not.toHaveProperty('headers');
    // Never the cookies: they are not replayed.
    expect(JSON.stringify(multi)).not.toContain('a=1');
  });

  it('a binary answer is stored as bytes and replayed base64-encoded', async () => {
    const bytes = gzipSync(Buffer.from('{"ok":true}'));
    const handler = withIdempotency(
      { store: new InMemoryStore(), provider: 'github', key },
      () => ({
        statusCode: 200,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: bytes.toString('base64'),
        isBase64Encoded: true,
      }),
    );
    await handler(httpApiEvent(), lambdaContext());
    const again = await handler(httpApiEvent(), lambdaContext());
    expect(again).toMatchObject({ isBase64Encoded: true, body: bytes.toString('base64') });
  });
});

describe('signatures over the bytes as sent', () => {
  const secret = 'It’s a Secret to Everybody';
  const signed = (body: Buffer, tamper = false): APIGatewayProxyEventV2 => {
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const event = httpApiEvent();
    const sent = tamper ? Buffer.concat([body, Buffer.from(' ')]) : body;
    return {
      ...event,
      headers: {
        ...event.headers,
        'x-hub-signature-256': signature,
        'content-type': 'application/octet-stream',
      },
      body: sent.toString('base64'),
      isBase64Encoded: true,
    };
  };

  it('a base64 body (binary, not UTF-8) verifies over its decoded bytes; one changed byte is 401, handler not run', async () => {
    const bytes = gzipSync(Buffer.from(BODY));
    let calls = 0;
    const handler = withIdempotency(
      { store: new InMemoryStore(), preset: providers.github({ secret }) },
      (event) => {
        calls++;
        expect(bodyOf(event)).toEqual(bytes);
        return { statusCode: 200, body: 'ok' };
      },
    );
    expect(await handler(signed(bytes), lambdaContext())).toMatchObject({ statusCode: 200 });
    const refused = await handler(signed(bytes, true), lambdaContext());
    expect(refused).toMatchObject({ statusCode: 401 });
    expect(calls).toBe(1);
  });
});

describe('events of other sources', () => {
  it.each(otherEvents)(
    '%s: UnsupportedEventError naming it, nothing claimed',
    async (_name, event, named) => {
      const events: unknown[] = [];
      const handler = jest.fn(ok);
      const store = new InMemoryStore();
      const onEvent = (e: unknown) => events.push(e);
      const guarded = withIdempotency({ store, provider: 'github', key, onEvent }, handler);
      const error = await guarded(event as never, lambdaContext()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsupportedEventError);
      expect(error).toMatchObject({
        code: 'ERR_IDEMPOTENCY_LAMBDA_EVENT',
        received: expect.stringMatching(named),
      });
      expect(handler).not.toHaveBeenCalled();
      expect(events).toEqual([]);
    },
  );
});
