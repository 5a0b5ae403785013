/** rawBodyParser(): the exact bytes on ctx.request.rawBody, JSON in ctx.request.body, 413 past the limit, 400 for bad JSON; on real Koa 3 and 2 servers. */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import Router from '@koa/router';
import { ConfigError, InMemoryStore } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import Koa3, { type Context } from 'koa';
import Koa2 from 'koa2';
import bodyParser from 'koa-bodyparser';
import request from 'supertest';
import { idempotent, rawBodyParser, type RawBodyParserOptions } from '../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/koa';

const SECRET = 'koa raw body secret';
const sign = (bytes: Buffer) =>
  `sha256=${createHmac('sha256', SECRET).update(bytes).digest('hex')}`;
const asIs = (body: unknown) => body as string;
/** Unusual spacing and a byte that is not UTF-8 (0xff inside a string): only the bytes as sent verify. */
const BYTES = Buffer.concat([
  Buffer.from('{"action":  "opened", "note": "'),
  Buffer.from([0xff]),
  Buffer.from('"}'),
]);

describe.each<[string, typeof Koa3]>([
  ['koa 3', Koa3],
  ['koa 2', Koa2 as unknown as typeof Koa3],
])('rawBodyParser (%s)', (_name, Framework) => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** One route: rawBodyParser, optionally the GitHub-preset guard, then a handler that reports what it got. */
  async function start(options?: RawBodyParserOptions, guarded = true) {
    const store = new InMemoryStore();
    const seen: Array<{ rawBody: unknown; body: unknown }> = [];
    const router = new Router();
    const middleware = [
      rawBodyParser(options),
      ...(guarded ? [idempotent({ store, preset: providers.github({ secret: SECRET }) })] : []),
    ];
    router.post('/hook', ...middleware, (ctx: Context) => {
      const { rawBody, body } = ctx.request as { rawBody?: unknown; body?: unknown };
      seen.push({ rawBody, body });
      ctx.body = {
        action: (body as { action?: string } | undefined)?.action ?? null,
        bytes: Buffer.isBuffer(rawBody) ? rawBody.length : -1,
      };
    });
    const app = new Framework();
    app.use(router.routes());
    const running = await listen(app);
    closers.push(running.close);
    // serialize: send the Buffer as it is (superagent would JSON-encode it for a JSON content type).
    const post = (bytes: Buffer | string, headers: Record<string, string> = {}) =>
      request(running.server)
        .post('/hook')
        .set('content-type', 'application/json')
        .set(headers)
        .serialize(asIs)
        .send(bytes);
    return { server: running.server, store, seen, post };
  }

  it('the GitHub preset verifies over the bytes as sent; the handler gets them and the parsed JSON; a repeat is replayed', async () => {
    const { post, seen } = await start();
    const headers = { 'x-github-delivery': 'd-1', 'x-hub-signature-256': sign(BYTES) };
    const first = await post(BYTES, headers);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ action: 'opened', bytes: BYTES.length });
    expect(Buffer.compare(seen[0]!.rawBody as Buffer, BYTES)).toBe(0);
    const again = await post(BYTES, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(seen).toHaveLength(1);
  });

  it('a signature over other bytes (the re-serialised JSON, the UTF-8 text) is refused with 401', async () => {
    const { post, seen } = await start();
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(BYTES.toString('utf8'))));
    const asText = Buffer.from(BYTES.toString('utf8'), 'utf8');
    for (const [i, other] of [reserialised, asText].entries()) {
      const res = await post(BYTES, {
        'x-github-delivery': `d-${i}`,
        'x-hub-signature-256': sign(other),
      });
      expect(res.status).toBe(401);
    }
    expect(seen).toHaveLength(0);
  });

  it('a body over the limit is answered 413 before the guard runs; one at the limit goes through', async () => {
    const { post, store, seen } = await start({ limit: 64 });
    const at = Buffer.from(JSON.stringify({ action: 'x'.repeat(64 - 13) }));
    expect(at.length).toBe(64);
    const over = Buffer.concat([at.subarray(0, 63), Buffer.from(' }')]);
    const refused = await post(over, {
      'x-github-delivery': 'big',
      'x-hub-signature-256': sign(over),
    });
    expect(refused.status).toBe(413);
    expect(refused.text).toBe('Request body larger than the limit of 64 bytes');
    expect(store.list()).toEqual([]);
    expect(
      (await post(at, { 'x-github-delivery': 'fits', 'x-hub-signature-256': sign(at) })).status,
    ).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('a chunked body (no Content-Length) is cut at the limit with 413, and the server keeps answering', async () => {
    const { server, seen } = await start({ limit: 64 }, false);
    const { port } = server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/hook',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 5; i++) req.write('x'.repeat(40));
      req.end();
    });
    expect(status).toBe(413);
    expect(seen).toHaveLength(0);
    const ok = await request(server)
      .post('/hook')
      .set('content-type', 'application/json')
      .send('{"action":"after"}');
    expect(ok.body).toEqual({ action: 'after', bytes: 18 });
  });

  /**
   * A raw client that writes a body for as long as the server lets it (never stopping at the
   * answer, as a flooding client would): what it read back, how many body bytes it wrote before the
   * server closed the connection, and whether it ran out of `maxBytes` first.
   */
  function writeUntilClosed(port: number, head: string, chunked: boolean, maxBytes: number) {
    return new Promise<{ answer: string; written: number; closedByServer: boolean }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const frame = Buffer.concat([
        Buffer.from(`${chunk.length.toString(16)}\r\n`),
        chunk,
        Buffer.from('\r\n'),
      ]);
      let answer = '';
      let written = 0;
      let done = false;
      const finish = (closedByServer: boolean) => {
        if (done) return;
        done = true;
        socket.destroy();
        resolve({ answer, written, closedByServer });
      };
      socket.on('data', (data) => {
        answer += data.toString('latin1');
      });
      socket.on('error', () => finish(true));
      socket.on('close', () => finish(true));
      const pump = () => {
        while (!done && written < maxBytes) {
          written += chunk.length;
          if (!socket.write(chunked ? frame : chunk)) return void socket.once('drain', pump);
        }
        if (!done) finish(false);
      };
      socket.write(head, pump);
    });
  }

  it.each([
    ['chunked body', 'transfer-encoding: chunked', true],
    ['body announced by Content-Length', `content-length: ${1024 * 1024 * 1024}`, false],
  ])(
    'a refused %s that goes on is read off only within a bound: 413, then the server closes the connection',
    async (_name, framing, chunked) => {
      const { server, seen } = await start({ limit: 64 }, false);
      const { port } = server.address() as AddressInfo;
      const head = `POST /hook HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`;
      // Far past the bound (16 MiB, a 1 s pause or 10 s): a server that read off everything would let
      // all 256 MiB through and keep the connection open.
      const { answer, written, closedByServer } = await writeUntilClosed(
        port,
        head,
        chunked,
        256 * 1024 * 1024,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(closedByServer).toBe(true);
      expect(written).toBeLessThan(128 * 1024 * 1024);
      expect(seen).toHaveLength(0);
    },
  );

  it('malformed JSON is answered 400 with what is wrong; the guard and the handler do not run', async () => {
    const { post, store, seen } = await start();
    const bad = Buffer.from('{"action": ');
    const res = await post(bad, { 'x-github-delivery': 'bad', 'x-hub-signature-256': sign(bad) });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^Invalid JSON in the request body: /);
    expect(store.list()).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  it('parses application/*+json, keeps any other body as the Buffer, and leaves an empty body undefined', async () => {
    const { server, seen } = await start(undefined, false);
    await request(server)
      .post('/hook')
      .set('content-type', 'application/cloudevents+json')
      .send('{"action":"ce"}');
    await request(server)
      .post('/hook')
      .set('content-type', 'application/x-www-form-urlencoded')
      .send('a=1&b=2');
    await request(server).post('/hook').set('content-type', 'application/json').send('');
    expect(seen[0]!.body).toEqual({ action: 'ce' });
    expect(Buffer.isBuffer(seen[1]!.body) && (seen[1]!.body as Buffer).toString()).toBe('a=1&b=2');
    expect(seen[1]!.rawBody).toBe(seen[1]!.body);
    expect(seen[2]).toEqual({ rawBody: Buffer.alloc(0), body: undefined });
  });

  it('refuses a compressed body with 415 (the bytes are kept as sent, never decoded)', async () => {
    const { post, seen } = await start(undefined, false);
    expect((await post('{}', { 'content-encoding': 'gzip' })).status).toBe(415);
    expect(seen).toHaveLength(0);
  });

  it('leaves a body an earlier parser already read alone', async () => {
    const router = new Router();
    const seen: unknown[] = [];
    router.post('/hook', bodyParser(), rawBodyParser(), (ctx: Context) => {
      seen.push(ctx.request.rawBody);
      ctx.body = ctx.request.body as object;
    });
    const app = new Framework();
    app.use(router.routes());
    const running = await listen(app);
    closers.push(running.close);
    const res = await request(running.server)
      .post('/hook')
      .set('content-type', 'application/json')
      .send('{"a": 1}');
    expect(res.body).toEqual({ a: 1 });
    expect(seen).toEqual(['{"a": 1}']);
  });
});

describe('rawBodyParser options', () => {
  it.each([-1, 1.5, Number.NaN, '1mb' as unknown as number])(
    'refuses maxRequestBytes %p with a ConfigError naming it',
    (maxRequestBytes) => {
      expect(() => rawBodyParser({ maxRequestBytes })).toThrow(
        expect.objectContaining({ name: 'ConfigError', option: 'maxRequestBytes' }),
      );
    },
  );

  it.each([-1, 1.5])('refuses the deprecated limit %p with a ConfigError naming it', (limit) => {
    expect(() => rawBodyParser({ limit })).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'limit' }),
    );
  });

  it('refuses maxRequestBytes and its deprecated alias limit together', () => {
    expect(() => rawBodyParser({ maxRequestBytes: 10, limit: 10 })).toThrow(ConfigError);
  });

  it.each([
    ['maxRequestBytes', { maxRequestBytes: 4 }],
    ['the deprecated limit', { limit: 4 }],
  ])('answers 413 past %s', async (_name, options) => {
    const app = new Koa3();
    app.use(rawBodyParser(options));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const server = app.callback();
    expect((await request(server).post('/').send('0123')).status).toBe(200);
    expect((await request(server).post('/').send('01234')).status).toBe(413);
  });

  it('returns a named middleware', () => {
    expect(rawBodyParser().name).toBe('rawBody');
  });
});
