/** The shared HTTP suite on Express 5 and 4, then what only Express has. */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';
import { InMemoryStore, type ProviderPreset } from '@webhook-idempotency/core';
import express from 'express';
import request from 'supertest';
import { idempotencyErrors, idempotent } from '../src';
import { expressApps, listen } from '@webhook-idempotency/adapter-conformance/apps/express';

runAdapterConformance(expressApps);

describe('express adapter specifics', () => {
  const key = (req: express.Request) => req.get('x-event-id');

  it('guards every route after app.use, and keeps the raw bytes from express.raw()', async () => {
    const app = express();
    let calls = 0;
    app.use(express.raw({ type: '*/*' }));
    app.use(idempotent({ store: new InMemoryStore(), provider: 'p', key }));
    app.post('/a', (_req, res) => void res.json({ route: 'a', n: ++calls }));
    app.post(
      '/b',
      (req, res) => void res.type('text/plain').send(`${(req.body as Buffer).length}:${++calls}`),
    );
    const { server, close } = await listen(app);
    try {
      const a1 = await request(server).post('/a').set('x-event-id', '1').send('x');
      const a2 = await request(server).post('/a').set('x-event-id', '1').send('x');
      expect(a2.headers['idempotent-replayed']).toBe('true');
      expect(a2.body).toEqual(a1.body);
      const b = await request(server)
        .post('/b')
        .set('x-event-id', '2')
        .set('content-type', 'text/plain')
        .send('hello');
      expect(b.text).toBe('5:2');
      expect(
        (
          await request(server)
            .post('/b')
            .set('x-event-id', '2')
            .set('content-type', 'text/plain')
            .send('HELLO')
        ).status,
      ).toBe(422);
      // Reads pass through unguarded: no key needed, never answered from a receipt.
      await request(server).get('/missing').expect(404);
      await request(server).head('/missing').expect(404);
    } finally {
      await close();
    }
  });

  it('passes its own errors to next(err) and never sends a 500 itself', async () => {
    const preset: ProviderPreset = {
      provider: 'signed',
      key: () => '1',
      needsRawBody: true,
      retentionDays: 1,
    };
    const app = express();
    app.post(
      '/hook',
      express.json(),
      idempotent({ store: new InMemoryStore(), preset }),
      (_req, res) => void res.send('ran'),
    );
    const seen: unknown[] = [];
    app.use(
      (
        error: unknown,
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        seen.push(error);
        res.status(599).json({ handledBy: 'app' });
      },
    );
    const { server, close } = await listen(app);
    try {
      const res = await request(server).post('/hook').send({ a: 1 });
      expect(res.status).toBe(599);
      expect(seen[0]).toMatchObject({ code: 'ERR_IDEMPOTENCY_RAW_BODY_MISSING' });
    } finally {
      await close();
    }
  });

  it('captures writeHead with headers, and replays them', async () => {
    const app = express();
    app.post(
      '/hook',
      idempotent({ store: new InMemoryStore(), provider: 'p', key, fingerprint: false }),
      (_req, res) => {
        res.writeHead(202, { 'content-type': 'text/plain', 'x-kind': 'raw' });
        res.end('accepted');
      },
    );
    const { server, close } = await listen(app);
    try {
      const first = await request(server).post('/hook').set('x-event-id', '9');
      const again = await request(server).post('/hook').set('x-event-id', '9');
      for (const res of [first, again]) {
        expect(res.status).toBe(202);
        expect(res.text).toBe('accepted');
        expect(res.headers['x-kind']).toBe('raw');
      }
      expect(again.headers['idempotent-replayed']).toBe('true');
    } finally {
      await close();
    }
  });

  it('a stored answer Node refuses to send (a header with a newline) goes to the error handler, and the process lives on', async () => {
    const store = new InMemoryStore();
    const k = { provider: 'p', externalId: 'bad-header' };
    await store.claim(k, { now: Date.now(), fingerprint: null });
    // A receipt written by other code: its header value cannot go on the wire.
    const response = JSON.stringify({
      status: 200,
      headers: { 'x-note': 'line one\nline two' },
      body: '{}',
      encoding: 'utf8',
    });
    await store.complete(k, { now: Date.now(), attempts: 1, response });
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: '*/*' }),
      idempotent({ store, provider: 'p', key }),
      (_req, res) => {
        res.json({ ran: true });
      },
    );
    const errors: unknown[] = [];
    app.use(
      (
        error: unknown,
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        errors.push(error);
        res.status(500).json({ error: 'handled' });
      },
    );
    const { server, close } = await listen(app);
    try {
      const answer = await request(server).post('/hook').set('x-event-id', 'bad-header').send('x');
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 'handled' });
      expect(errors).toEqual([expect.objectContaining({ code: 'ERR_INVALID_CHAR' })]);
    } finally {
      await close();
    }
  });

  it('exposes the factory as a named function', () => {
    expect(idempotent({ store: new InMemoryStore(), provider: 'p', key }).name).toBe('idempotency');
  });
});

describe('idempotencyErrors()', () => {
  const key = (req: express.Request) => req.get('x-event-id');

  async function appWith(errorMiddleware: boolean, errorStatus: number) {
    const store = new InMemoryStore();
    const app = express();
    let calls = 0;
    app.post(
      '/hook',
      express.json(),
      idempotent({ store, provider: 'p', key }),
      (_req, _res, next) => {
        calls++;
        if (calls === 1) return next(new Error('ledger is locked'));
        _res.json({ ok: true, calls });
      },
    );
    if (errorMiddleware) app.use(idempotencyErrors());
    app.use(
      (error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        res.status(errorStatus).json({ error: error.message });
      },
    );
    return { ...(await listen(app)), store, calls: () => calls };
  }

  it('an error answered with 200 by the app fails the receipt with the real error, and the retry runs again', async () => {
    const { server, close, store } = await appWith(true, 200);
    try {
      const first = await request(server).post('/hook').set('x-event-id', 'e1').send({ a: 1 });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ error: 'ledger is locked' });
      const receipt = await store.find({ provider: 'p', externalId: 'e1' }, { now: Date.now() });
      expect(receipt).toMatchObject({
        status: 'failed',
        error: 'Error: ledger is locked',
        response: null,
      });
      const retry = await request(server).post('/hook').set('x-event-id', 'e1').send({ a: 1 });
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(retry.body).toEqual({ ok: true, calls: 2 });
    } finally {
      await close();
    }
  });

  it('without it, a 2xx error answer is taken for a success (why the middleware exists)', async () => {
    const { server, close, store } = await appWith(false, 200);
    try {
      await request(server).post('/hook').set('x-event-id', 'e2').send({ a: 1 }).expect(200);
      expect(
        (await store.find({ provider: 'p', externalId: 'e2' }, { now: Date.now() }))?.status,
      ).toBe('completed');
    } finally {
      await close();
    }
  });

  it('records the real error for a 500 too, and passes errors of unguarded requests along untouched', async () => {
    const { server, close, store } = await appWith(true, 500);
    try {
      await request(server).post('/hook').set('x-event-id', 'e3').send({ a: 1 }).expect(500);
      expect(
        (await store.find({ provider: 'p', externalId: 'e3' }, { now: Date.now() }))?.error,
      ).toBe('Error: ledger is locked');
      const app = express();
      app.get('/boom', () => {
        throw new Error('unguarded');
      });
      app.use(idempotencyErrors());
      app.use(
        (error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
          void res.status(418).send(error.message),
      );
      const other = await listen(app);
      try {
        await request(other.server).get('/boom').expect(418, 'unguarded');
      } finally {
        await other.close();
      }
    } finally {
      await close();
    }
  });
});

describe('response capture across apps and other patches', () => {
  const key = (req: express.Request) => req.get('x-event-id');

  it('captures an answer given inside a mounted sub-app (Express swaps the response prototype there)', async () => {
    const store = new InMemoryStore();
    const app = express();
    const sub = express();
    let calls = 0;
    sub.post('/hook', (_req, res) => void res.status(201).json({ n: ++calls }));
    app.use(express.json(), idempotent({ store, provider: 'p', key }));
    app.use('/sub', sub);
    const { server, close } = await listen(app);
    try {
      const first = await request(server).post('/sub/hook').set('x-event-id', 's1').send({});
      const retry = await request(server).post('/sub/hook').set('x-event-id', 's1').send({});
      expect(first.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual({ n: 1 });
      expect(calls).toBe(1);
      expect(
        await store.find({ provider: 'p', externalId: 's1' }, { now: Date.now() }),
      ).toMatchObject({ status: 'completed' });
    } finally {
      await close();
    }
  });

  it('captures a response whose end() another middleware already replaced on the response itself', async () => {
    const store = new InMemoryStore();
    const app = express();
    const seen: string[] = [];
    app.use((_req, res, next) => {
      const end = res.end.bind(res) as (...args: unknown[]) => express.Response;
      (res as { end: unknown }).end = (...args: unknown[]) => {
        seen.push('outer end');
        return end(...args);
      };
      next();
    });
    app.post(
      '/hook',
      express.json(),
      idempotent({ store, provider: 'p', key }),
      (_req, res) => void res.json({ ok: 1 }),
    );
    const { server, close } = await listen(app);
    try {
      await request(server).post('/hook').set('x-event-id', 'o1').send({}).expect(200, { ok: 1 });
      const retry = await request(server).post('/hook').set('x-event-id', 'o1').send({});
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(seen.length).toBeGreaterThanOrEqual(2); // the other middleware still saw both answers
    } finally {
      await close();
    }
  });
});
