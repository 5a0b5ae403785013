/**
 * The HTTP sender against a real node:http server on 127.0.0.1 that records every request by its
 * key: the key in its header on every attempt (through the dispatcher too), each class of answer
 * sorted into sent, retried and refused for good, a redirect never followed, the deadline, a
 * network error, and error texts that name the request without its query or headers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryInbox } from '../../src/inbox';
import {
  createOutboxDispatcher,
  type HttpMessage,
  httpSender,
  type OutboxEvent,
  PermanentSendFailure,
} from '../../src/outbox';
import { configOptionOf, outboxInto, rejection } from './support';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly key: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let server: Server;
let base: string;
let seen: Seen[];
/** Answers of `/flaky` per key so far. */
const flaky = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://127.0.0.1');
      const key = req.headers['idempotency-key'] as string | undefined;
      seen.push({
        method: req.method!,
        path: url.pathname,
        key,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const [, route, arg] = url.pathname.split('/');
      if (route === 'status') {
        const status = Number(arg);
        if (status >= 300 && status < 400) res.setHeader('location', '/elsewhere?token=s3cret');
        res.writeHead(status).end(status === 204 ? undefined : `answer ${status}\n  of the server`);
      } else if (route === 'long') res.writeHead(Number(arg)).end('x'.repeat(100_000));
      else if (route === 'flaky') {
        const n = (flaky.get(key!) ?? 0) + 1;
        flaky.set(key!, n);
        res.writeHead(n <= 2 ? 503 : 201).end(n <= 2 ? 'busy' : 'created');
      } else if (route === 'hang') {
        // Never answers: the client must give up.
      } else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const KEY = '14abbdf9-b58f-8f26-bca1-45d1e4954304';

/** One attempt of `sender` with `payload`, as the dispatcher makes it. */
function attempt(
  payload: HttpMessage,
  { sender = httpSender(), signal = new AbortController().signal, key = KEY } = {},
) {
  return sender({
    key,
    name: 'notify',
    payload,
    receipt: { provider: 'stripe', externalId: 'evt_1' },
    attempt: 1,
    signal,
  });
}

it('sends the request with the effect key in Idempotency-Key; a json payload goes as JSON', async () => {
  await attempt({ url: `${base}/ok`, json: { orderId: 7 }, headers: { 'x-tenant': 'a' } });
  expect(seen).toEqual([
    expect.objectContaining({ method: 'POST', path: '/ok', key: KEY, body: '{"orderId":7}' }),
  ]);
  expect(seen[0]!.headers).toMatchObject({
    'content-type': 'application/json',
    'x-tenant': 'a',
  });
});

it('sends a body as given, with the method and content type given; the key header is always its own', async () => {
  await attempt({
    url: `${base}/ok`,
    method: 'PUT',
    body: 'a=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'Idempotency-Key': 'mine' },
  });
  expect(seen).toEqual([expect.objectContaining({ method: 'PUT', key: KEY, body: 'a=1' })]);
  expect(seen[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
});

it('puts the key in the header named by keyHeader, through the fetch given', async () => {
  const calls: string[] = [];
  const sender = httpSender({
    keyHeader: 'X-Request-Id',
    fetch: (url, init) => {
      calls.push(String(url));
      return fetch(url, init);
    },
  });
  await attempt({ url: `${base}/ok` }, { sender });
  expect(calls).toEqual([`${base}/ok`]);
  expect(seen[0]!.headers['x-request-id']).toBe(KEY);
  expect(seen[0]!.key).toBeUndefined();
});

describe('answers', () => {
  it.each([200, 201, 202, 204])('%i: sent', async (status) => {
    await expect(attempt({ url: `${base}/status/${status}` })).resolves.toBeUndefined();
  });

  it.each([408, 409, 425, 429, 500, 502, 503])('%i: a failure to retry', async (status) => {
    const error = await rejection(attempt({ url: `${base}/status/${status}` }));
    expect(error).not.toBeInstanceOf(PermanentSendFailure);
    expect(error.message).toBe(`POST ${base} answered ${status}: answer ${status} of the server`);
  });

  it.each([400, 401, 403, 404, 410, 422])('%i: refused for good', async (status) => {
    const error = await rejection(attempt({ url: `${base}/status/${status}` }));
    expect(error).toBeInstanceOf(PermanentSendFailure);
    expect(error.message).toBe(`POST ${base} answered ${status}: answer ${status} of the server`);
  });

  it.each([301, 302, 307, 308])(
    '%i: a redirect, never followed, refused for good',
    async (status) => {
      const error = await rejection(attempt({ url: `${base}/status/${status}` }));
      expect(error).toBeInstanceOf(PermanentSendFailure);
      expect(error.message).toBe(
        `POST ${base} answered ${status}, a redirect to ${base}: not followed`,
      );
      expect(seen.map((s) => s.path)).toEqual([`/status/${status}`]);
    },
  );
});

it('an error names the method and origin: never the path, the query or the headers', async () => {
  const error = await rejection(
    attempt({
      url: `${base}/status/500/T000s3cretpath?api_key=s3cret`,
      headers: { authorization: 'Bearer t0ken' },
    }),
  );
  expect(error.message).toBe(`POST ${base} answered 500: answer 500 of the server`);
  expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer t0ken']);
});

it('a URL holding credentials is refused for good, never sent, and never shown', async () => {
  const url = new URL(`${base}/ok?api_key=s3cret`);
  url.username = 'user';
  url.password = 'pa55';
  const error = await rejection(attempt({ url: url.href }));
  expect(error).toBeInstanceOf(PermanentSendFailure);
  expect(error.message).toContain('url must not hold credentials');
  for (const secret of ['s3cret', 'pa55', 'user:']) expect(error.message).not.toContain(secret);
  expect(seen).toEqual([]);
});

it('an error shows at most 200 characters of the answer', async () => {
  const error = await rejection(attempt({ url: `${base}/long/400` }));
  expect(error.message).toBe(`POST ${base} answered 400: ${'x'.repeat(200)}`);
  const small = await rejection(
    attempt({ url: `${base}/long/500` }, { sender: httpSender({ maxResponseBytes: 10 }) }),
  );
  expect(small.message).toBe(`POST ${base} answered 500: ${'x'.repeat(10)}`);
});

it('no server listening: a failure to retry, naming the request', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await rejection(attempt({ url: `http://127.0.0.1:${port}/hook?sig=s3cret` }));
  expect(error).not.toBeInstanceOf(PermanentSendFailure);
  expect(error.message).toMatch(
    new RegExp(`^POST http://127\\.0\\.0\\.1:${port}: no answer \\(.*ECONNREFUSED`),
  );
  expect(error.message).not.toContain('s3cret');
});

it('a fetch failure whose text holds the URL is shown without its path and query', async () => {
  const sender = httpSender({
    fetch: async (url) => {
      throw new TypeError(`could not reach ${String(url)}`);
    },
  });
  const error = await rejection(
    attempt({ url: 'https://api.example/hook?sig=s3cret' }, { sender }),
  );
  expect(error.message).toBe(
    'POST https://api.example: no answer (TypeError: could not reach https://api.example)',
  );
});

it('the signal aborts a request under way: it rejects with the signal’s reason', async () => {
  const controller = new AbortController();
  const work = attempt({ url: `${base}/hang` }, { signal: controller.signal });
  while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
  const reason = new DOMException('the sender did not finish', 'TimeoutError');
  controller.abort(reason);
  expect(await rejection(work)).toBe(reason);
});

describe('a message that is no request is refused for good, nothing sent', () => {
  it.each<[string, unknown, string]>([
    ['not an object', 'https://example.test', 'expected an object'],
    ['no url', { json: {} }, 'url must be an absolute URL'],
    ['a relative url', { url: '/hook' }, 'url must be an absolute URL'],
    ['another scheme', { url: 'file:///etc/passwd' }, 'url must be http: or https:, got file:'],
    [
      'a bad method',
      { url: 'http://127.0.0.1/', method: 'PO ST' },
      'method must be an HTTP method',
    ],
    [
      'body and json',
      { url: 'http://127.0.0.1/', body: 'a', json: {} },
      'body and json are exclusive',
    ],
    [
      'a body that is no string',
      { url: 'http://127.0.0.1/', body: { a: 1 } },
      'body must be a string',
    ],
    [
      'a GET with a body',
      { url: 'http://127.0.0.1/', method: 'GET', json: {} },
      'a GET request has no body',
    ],
    [
      'bad headers',
      { url: 'http://127.0.0.1/', headers: { 'a b': 'c' } },
      'headers must be an object',
    ],
  ])('%s', async (_case, payload, problem) => {
    const error = await rejection(attempt(payload as HttpMessage));
    expect(error).toBeInstanceOf(PermanentSendFailure);
    expect(error.message).toContain(`Invalid HTTP message: ${problem}`);
    expect(seen).toEqual([]);
  });
});

it('refuses invalid options with a ConfigError naming each', () => {
  const named = configOptionOf;
  expect(named(() => httpSender({ keyHeader: 'Idempotency Key' }))).toBe('keyHeader');
  expect(named(() => httpSender({ maxResponseBytes: -1 }))).toBe('maxResponseBytes');
  expect(named(() => httpSender({ maxResponseBytes: 1.5 }))).toBe('maxResponseBytes');
  expect(named(() => httpSender({ fetch: 'fetch' as never }))).toBe('fetch');
});

describe('through the dispatcher', () => {
  let time: number;
  let inbox: InMemoryInbox;
  let events: OutboxEvent[];

  beforeEach(() => {
    time = Date.UTC(2026, 0, 1);
    inbox = new InMemoryInbox({ now: () => time });
    events = [];
  });

  const dispatcher = (extra = {}) =>
    createOutboxDispatcher({
      outbox: inbox,
      senders: { http: httpSender() },
      backoffBaseMs: 100,
      random: () => 0,
      onEvent: (event) => void events.push(event),
      ...extra,
    });

  it('every attempt of a message carries the same key: two 503s, then sent', async () => {
    const { record } = outboxInto(inbox);
    const key = await record('evt_9', {
      name: 'notify-crm',
      sender: 'http',
      payload: { url: `${base}/flaky`, json: { paid: true } } satisfies HttpMessage,
    });
    const d = dispatcher();
    for (let round = 0; round < 3; round++) {
      expect(await d.runOnce()).toBe(1);
      time += 3_600_000;
    }
    expect(seen.map((s) => [s.path, s.key, s.body])).toEqual([
      ['/flaky', key, '{"paid":true}'],
      ['/flaky', key, '{"paid":true}'],
      ['/flaky', key, '{"paid":true}'],
    ]);
    expect(events.map((e) => e.type)).toEqual(['retry', 'retry', 'sent']);
    expect(events[0]).toMatchObject({ error: `Error: POST ${base} answered 503: busy` });
    expect(await inbox.find('http', key)).toMatchObject({ status: 'done', failures: 2 });
  });

  it('a server that never answers is given up on at sendTimeoutMs and retried', async () => {
    const { record } = outboxInto(inbox);
    const key = await record('evt_9', {
      name: 'notify-crm',
      sender: 'http',
      payload: { url: `${base}/hang` },
    });
    expect(await dispatcher({ sendTimeoutMs: 200 }).runOnce()).toBe(1);
    expect(seen.map((s) => s.key)).toEqual([key]);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'retry',
        error: 'TimeoutError: the sender did not finish within 200 ms (sendTimeoutMs)',
      }),
    ]);
  });

  it('a 422 is dead at once', async () => {
    const { record } = outboxInto(inbox);
    const key = await record('evt_9', {
      name: 'notify-crm',
      sender: 'http',
      payload: { url: `${base}/status/422` },
    });
    expect(await dispatcher().runOnce()).toBe(1);
    expect(await inbox.find('http', key)).toMatchObject({
      status: 'dead',
      lastError: `PermanentSendFailure: POST ${base} answered 422: answer 422 of the server`,
    });
  });
});
