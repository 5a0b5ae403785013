/** The response capture against what runs around it: wrappers mounted after the guard (compression), and other apps in the same process. */
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { InMemoryStore, type Store } from '@webhook-idempotency/core';
import compression from 'compression';
import express5 from 'express';
import express4 from 'express4';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { idempotencyErrors, idempotent } from '../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/express';

/** One answer as it came off the wire: status, headers, the exact body bytes. */
interface Wire {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Bounds each request so that an answer that never comes fails its test instead of hanging it. */
const ANSWER_WITHIN_MS = 3_000;

/** POSTs a JSON body and returns the raw bytes (no decompression), or rejects when no complete answer arrives in time. */
function post(server: Server, id: string, headers: Record<string, string> = {}): Promise<Wire> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/hook',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'x-event-id': id, ...headers },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no complete answer for delivery ${id} within ${ANSWER_WITHIN_MS} ms`));
    }, ANSWER_WITHIN_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end('{"a":1}');
  });
}

/** A JSON answer far above compression's 1 KiB threshold. */
const bigAnswer = (n: number) => ({
  n,
  rows: Array.from({ length: 200 }, (_, i) => ({ i, text: 'compress me please' })),
});

const key = (req: Request) => req.get('x-event-id');

/** The methods that the capture must leave alone on shared prototypes. */
const METHODS = ['writeHead', 'write', 'end'] as const;
type Snapshot = Record<string, { own: string[]; values: unknown[] }>;

function snapshot(targets: Record<string, object>): Snapshot {
  const out: Snapshot = {};
  for (const [name, target] of Object.entries(targets)) {
    out[name] = {
      own: Object.getOwnPropertyNames(target).sort(),
      values: METHODS.map((m) => (target as Record<string, unknown>)[m]),
    };
  }
  return out;
}

for (const [name, framework] of [
  ['express 5', express5],
  ['express 4', express4 as typeof express5],
] as const) {
  describe(`${name}: wrappers mounted after the guard`, () => {
    it('compression() after idempotent(): the first delivery is answered, gzip-encoded and decodable; the duplicate replays the same bytes', async () => {
      const store = new InMemoryStore();
      const app = framework();
      let calls = 0;
      app.use(framework.json(), idempotent({ store, provider: 'p', key }));
      app.use(compression());
      app.post('/hook', (_req, res) => void res.json(bigAnswer(++calls)));
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 'z1', { 'accept-encoding': 'gzip' });
        expect(first.status).toBe(200);
        expect(first.headers['content-encoding']).toBe('gzip');
        expect(JSON.parse(gunzipSync(first.body).toString())).toEqual(bigAnswer(1));
        const again = await post(server, 'z1', { 'accept-encoding': 'gzip' });
        expect(again.status).toBe(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.headers['content-encoding']).toBe('gzip');
        expect(again.body.equals(first.body)).toBe(true);
        expect(calls).toBe(1);
        expect(
          await store.find({ provider: 'p', externalId: 'z1' }, { now: Date.now() }),
        ).toMatchObject({ status: 'completed' });
      } finally {
        await close();
      }
    });

    it('compression() after idempotent() with a streamed answer (write, write, end): answered once, decodable', async () => {
      const app = framework();
      app.use(idempotent({ store: new InMemoryStore(), provider: 'p', key, fingerprint: false }));
      app.use(compression());
      app.post('/hook', (_req, res) => {
        res.setHeader('content-type', 'text/plain');
        for (let i = 0; i < 100; i++) res.write(`line ${i} of a text worth compressing\n`);
        res.end('done\n');
      });
      const { server, close } = await listen(app);
      try {
        const expected = `${Array.from({ length: 100 }, (_, i) => `line ${i} of a text worth compressing\n`).join('')}done\n`;
        const first = await post(server, 'z2', { 'accept-encoding': 'gzip' });
        expect(first.status).toBe(200);
        expect(first.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(first.body).toString()).toBe(expected);
        const again = await post(server, 'z2', { 'accept-encoding': 'gzip' });
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(gunzipSync(again.body).toString()).toBe(expected);
      } finally {
        await close();
      }
    });

    it('a once-guarded end() wrapper after the guard is entered once, by the handler, and the answer still goes out', async () => {
      const app = framework();
      const ends: string[] = [];
      app.use(idempotent({ store: new InMemoryStore(), provider: 'p', key, fingerprint: false }));
      app.use((_req: Request, res: Response, next: NextFunction) => {
        const end = res.end;
        let ended = false;
        (res as { end: unknown }).end = function onceEnd(this: Response, ...args: unknown[]) {
          ends.push(ended ? 'again' : 'first');
          if (ended) return this;
          ended = true;
          return (end as (...a: unknown[]) => Response).apply(this, args);
        };
        next();
      });
      app.post('/hook', (_req, res) => void res.status(201).json({ ok: true }));
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 'o1');
        expect(first.status).toBe(201);
        expect(JSON.parse(first.body.toString())).toEqual({ ok: true });
        expect(ends).toEqual(['first']);
        const again = await post(server, 'o1');
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.status).toBe(201);
      } finally {
        await close();
      }
    });

    it('a header set by a writeHead listener mounted after the guard (on-headers style) is on the first answer and on the replay', async () => {
      const app = framework();
      app.use(idempotent({ store: new InMemoryStore(), provider: 'p', key, fingerprint: false }));
      app.use((_req: Request, res: Response, next: NextFunction) => {
        const writeHead = res.writeHead;
        let fired = 0;
        (res as { writeHead: unknown }).writeHead = function stamp(
          this: Response,
          ...args: unknown[]
        ) {
          if (fired++ === 0) this.setHeader('x-stamped', 'yes');
          return (writeHead as (...a: unknown[]) => Response).apply(this, args);
        };
        next();
      });
      app.post('/hook', (_req, res) => void res.json({ ok: true }));
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 'h1');
        expect(first.headers['x-stamped']).toBe('yes');
        const again = await post(server, 'h1');
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.headers['x-stamped']).toBe('yes');
      } finally {
        await close();
      }
    });

    it('a middleware before the guard sees exactly one writeHead() and one end(), with the whole body', async () => {
      const store = new InMemoryStore();
      const app = framework();
      const seen: string[] = [];
      app.use((_req: Request, res: Response, next: NextFunction) => {
        const writeHead = res.writeHead;
        (res as { writeHead: unknown }).writeHead = function outerWriteHead(
          this: Response,
          ...args: unknown[]
        ) {
          seen.push(`head ${String(args[0])}`);
          return (writeHead as (...a: unknown[]) => Response).apply(this, args);
        };
        const end = res.end;
        (res as { end: unknown }).end = function outerEnd(
          this: Response,
          chunk: unknown,
          ...rest: unknown[]
        ) {
          seen.push(Buffer.isBuffer(chunk) ? chunk.toString() : String(chunk));
          return (end as (...a: unknown[]) => Response).call(this, chunk, ...rest);
        };
        next();
      });
      app.use(idempotent({ store, provider: 'p', key, fingerprint: false }));
      app.use(compression());
      app.post('/hook', (_req, res) => void res.type('text/plain').send('short answer'));
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 'b1', { 'accept-encoding': 'gzip' });
        expect(first.body.toString()).toBe('short answer'); // below compression's threshold: sent as is
        expect(seen).toEqual(['head 200', 'short answer']);
      } finally {
        await close();
      }
    });

    it('a handler that answers and then throws, with no idempotencyErrors(): its answer goes out as recorded, not under the error page headers Express sets after it', async () => {
      const store = new InMemoryStore();
      const app = framework();
      app.use(framework.json(), idempotent({ store, provider: 'p', key }));
      app.post('/hook', (_req, res) => {
        res.json({ ok: 1 });
        throw new Error('after the answer');
      });
      // Express's default error handler would log the error: this one sets its page's head as it does.
      app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
        res.status(500).set({ 'content-type': 'text/html', 'content-length': '1302' });
        res.end('<html>error</html>');
      });
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 't1');
        expect([first.status, first.headers['content-type'], first.body.toString()]).toEqual([
          200,
          'application/json; charset=utf-8',
          '{"ok":1}',
        ]);
        const again = await post(server, 't1');
        expect([again.status, again.headers['idempotent-replayed'], again.body.toString()]).toEqual(
          [200, 'true', '{"ok":1}'],
        );
      } finally {
        await close();
      }
    });

    it('a replacement answer (the store failed at complete) goes out through compression() too, plain and decodable', async () => {
      const memory = new InMemoryStore();
      const store: Store<unknown> = {
        capabilities: memory.capabilities,
        claim: (k, o) => memory.claim(k, o),
        reclaim: (...a) => memory.reclaim(...a),
        complete: () => Promise.reject(new Error('read ECONNRESET')),
        fail: (...a) => memory.fail(...a),
        find: (...a) => memory.find(...a),
        purge: (...a) => memory.purge(...a),
      };
      const app = framework();
      app.use(framework.json(), idempotent({ store, provider: 'p', key }));
      app.use(compression());
      app.post('/hook', (_req, res) => void res.json(bigAnswer(1)));
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 'r1', { 'accept-encoding': 'gzip' });
        expect(first.status).toBe(503);
        expect(first.headers['retry-after']).toBe('1');
        expect(first.headers['content-encoding']).toBeUndefined();
        expect(JSON.parse(first.body.toString())).toMatchObject({ code: 'ERR_IDEMPOTENCY_STORE' });
      } finally {
        await close();
      }
    });

    it('an answer over maxResponseBytes reaches the error handler, whose answer goes out despite compression() having ended', async () => {
      const store = new InMemoryStore();
      const app = framework();
      app.use(framework.json(), idempotent({ store, provider: 'p', key, maxResponseBytes: 64 }));
      app.use(compression());
      app.post('/hook', (_req, res) => void res.json(bigAnswer(1)));
      app.use(idempotencyErrors());
      app.use(
        (error: { code?: string }, _req: Request, res: Response, _next: NextFunction) =>
          void res.status(500).json({ failed: error.code }),
      );
      const { server, close } = await listen(app);
      try {
        const first = await post(server, 'm1', { 'accept-encoding': 'gzip' });
        expect(first.status).toBe(500);
        expect(first.headers['content-encoding']).toBeUndefined();
        expect(JSON.parse(first.body.toString())).toEqual({
          failed: 'ERR_IDEMPOTENCY_RESPONSE_TOO_LARGE',
        });
        expect(
          await store.find({ provider: 'p', externalId: 'm1' }, { now: Date.now() }),
        ).toMatchObject({ status: 'failed' });
      } finally {
        await close();
      }
    });
  });

  describe(`${name}: no side effects outside the guarded response`, () => {
    it('leaves the shared response prototypes untouched, and another app in the process answers through the plain methods', async () => {
      const targets = {
        'express.response': framework.response,
        'http.ServerResponse.prototype': http.ServerResponse.prototype,
        'http.OutgoingMessage.prototype': http.OutgoingMessage.prototype,
      };
      const before = snapshot(targets);
      const guarded = framework();
      guarded.use(framework.json(), idempotent({ store: new InMemoryStore(), provider: 'p', key }));
      guarded.post('/hook', (_req, res) => void res.json({ ok: true }));
      const plain = framework();
      const plainMethods: boolean[] = [];
      const check: RequestHandler = (_req, res) => {
        plainMethods.push(
          res.writeHead === http.ServerResponse.prototype.writeHead &&
            res.write === http.OutgoingMessage.prototype.write &&
            res.end === http.OutgoingMessage.prototype.end,
        );
        res.json({ plain: true });
      };
      plain.post('/hook', check);
      const a = await listen(guarded);
      const b = await listen(plain);
      try {
        expect((await post(a.server, 'g1')).status).toBe(200);
        expect((await post(a.server, 'g1')).headers['idempotent-replayed']).toBe('true');
        expect((await post(b.server, 'u1')).status).toBe(200);
        expect(snapshot(targets)).toEqual(before);
        // Express's response defines none of them itself: an own property there is a patch.
        for (const m of METHODS) expect(Object.hasOwn(framework.response, m)).toBe(false);
        expect(plainMethods).toEqual([true]);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}

describe('write and end callbacks', () => {
  it('fire once the answer has been flushed, in order', async () => {
    const app = express5();
    const order: string[] = [];
    app.use(idempotent({ store: new InMemoryStore(), provider: 'p', key, fingerprint: false }));
    app.post('/hook', (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.write('a', () => order.push('write a'));
      res.write(Buffer.from('b'), 'utf8', () => order.push('write b'));
      res.end('c', () => order.push('end'));
    });
    const { server, close } = await listen(app);
    try {
      const first = await post(server, 'c1');
      expect(first.body.toString()).toBe('abc');
      expect(order).toEqual(['write a', 'write b', 'end']);
    } finally {
      await close();
    }
  });
});

describe('a released capture', () => {
  it('forwards each call to the layer below with exactly the arguments it was made with', async () => {
    const calls: string[] = [];
    const app = express5();
    app.use((_req: Request, res: Response, next: NextFunction) => {
      const methods = res as unknown as Record<string, (...args: unknown[]) => unknown>;
      for (const m of METHODS) {
        const below = methods[m]!;
        methods[m] = function recording(this: Response, ...args: unknown[]) {
          calls.push(`${m}/${args.length}`);
          return below.apply(this, args);
        };
      }
      next();
    });
    app.use(idempotent({ store: new InMemoryStore(), provider: 'p', key, fingerprint: false }));
    app.post('/hook', (_req, _res, next) => next(new Error('handler failed')));
    app.use(idempotencyErrors());
    app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
      res.writeHead(500, 'Broken', { 'content-type': 'text/plain' });
      res.write('a');
      res.write('b', 'utf8', () => undefined);
      res.end();
    });
    const { server, close } = await listen(app);
    try {
      const first = await post(server, 'f1');
      expect(first.status).toBe(500);
      expect(first.body.toString()).toBe('ab');
      expect(calls).toEqual(['writeHead/3', 'write/1', 'write/3', 'end/0']);
    } finally {
      await close();
    }
  });
});

describe('an answer Node refuses at the flush', () => {
  it('a status outside 100–999 set on res.statusCode goes to the error handling instead of leaving the caller without an answer', async () => {
    const store = new InMemoryStore();
    const app = express4();
    app.use(idempotent({ store, provider: 'p', key, fingerprint: false }));
    app.post('/hook', (_req: Request, res: Response) => {
      res.statusCode = 1000;
      res.end('odd');
    });
    app.use(
      (error: { code?: string }, _req: Request, res: Response, _next: NextFunction) =>
        void res.status(500).send(String(error.code)),
    );
    const { server, close } = await listen(app as unknown as express5.Application);
    try {
      const first = await post(server, 'x1');
      expect(first.status).toBe(500);
      expect(first.body.toString()).toBe('ERR_HTTP_INVALID_STATUS_CODE');
      expect(
        await store.find({ provider: 'p', externalId: 'x1' }, { now: Date.now() }),
      ).toMatchObject({ status: 'failed' });
    } finally {
      await close();
    }
  });
});
