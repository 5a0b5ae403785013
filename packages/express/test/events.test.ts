/** The `delivered` event over a real Express server: outcome, the answer's HTTP status, timings. */
import { storeKinds, unreachableStore } from '@webhook-idempotency/adapter-conformance';
import { type GuardEvent, InMemoryStore, type Store } from '@webhook-idempotency/core';
import express from 'express';
import request from 'supertest';
import { idempotent } from '../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/express';

type Delivered = Extract<GuardEvent, { type: 'delivered' }>;

/** Waits until at least `ms` have passed by `performance.now()`. */
async function busyFor(ms: number): Promise<void> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(1, ms - (performance.now() - start))),
    );
  }
}

async function start(store: Store<unknown>, transactional = false, handlerTimeoutSeconds?: number) {
  const events: GuardEvent[] = [];
  let release: (() => void) | undefined;
  const app = express();
  app.post(
    '/hook',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      transactional,
      ...(handlerTimeoutSeconds ? { handlerTimeoutSeconds } : {}),
      provider: 'shop',
      key: (req) => req.get('x-event-id'),
      onEvent: (event) => void events.push(event),
    }),
    async (req, res) => {
      const mode = req.get('x-mode');
      if (mode === 'slow') await busyFor(30);
      if (mode === 'hold') await new Promise<void>((resolve) => (release = resolve));
      if (mode === 'fail') return void res.status(500).json({ error: 'downstream' });
      res.status(201).json({ created: true });
    },
  );
  const running = await listen(app);
  const delivered = () => events.filter((e): e is Delivered => e.type === 'delivered');
  /** The delivered events once there are `n` (an answer may leave just before its event is seen). */
  const settled = async (n: number) => {
    for (let i = 0; i < 100 && delivered().length < n; i++)
      await new Promise((r) => setTimeout(r, 5));
    return delivered();
  };
  return { ...running, events, delivered, settled, release: () => release?.() };
}

describe('delivered events over Express', () => {
  it('first (201), replay (the stored 201), failure (500): status, outcome, handler time', async () => {
    const app = await start(new InMemoryStore());
    try {
      const first = await request(app.server)
        .post('/hook')
        .set('x-event-id', 'e1')
        .set('x-mode', 'slow')
        .send('a');
      expect(first.status).toBe(201);
      const replay = await request(app.server).post('/hook').set('x-event-id', 'e1').send('a');
      expect(replay.status).toBe(201);
      const failure = await request(app.server)
        .post('/hook')
        .set('x-event-id', 'e2')
        .set('x-mode', 'fail')
        .send('b');
      expect(failure.status).toBe(500);
      const [d1, d2, d3] = await app.settled(3);
      expect(d1).toMatchObject({ outcome: 'first', status: 201, attempts: 1 });
      expect(d1!.handlerMs).toBeGreaterThanOrEqual(30);
      expect(d1!.durationMs).toBeGreaterThanOrEqual(d1!.handlerMs!);
      expect(d2).toMatchObject({
        outcome: 'replay',
        status: 201,
        attempts: 1,
        handlerMs: undefined,
      });
      expect(d2!.durationMs).toBeGreaterThanOrEqual(0);
      expect(d3).toMatchObject({ outcome: 'failed', status: 500, attempts: 1 });
      expect(d3!.handlerMs).toBeGreaterThanOrEqual(0);
      const completed = app.events.find((e) => e.type === 'completed');
      expect(completed).toMatchObject({ handlerMs: d1!.handlerMs });
      expect(app.delivered()).toHaveLength(3);
    } finally {
      await app.close();
    }
  });

  it('a duplicate while the first is in flight: conflict with 409; a reused id with another body: mismatch with 422', async () => {
    const app = await start(new InMemoryStore());
    try {
      const held = request(app.server)
        .post('/hook')
        .set('x-event-id', 'e3')
        .set('x-mode', 'hold')
        .send('a')
        .then((r) => r);
      for (let i = 0; i < 100 && !app.events.some((e) => e.type === 'claimed'); i++)
        await new Promise((r) => setTimeout(r, 5));
      const dup = await request(app.server).post('/hook').set('x-event-id', 'e3').send('a');
      expect(dup.status).toBe(409);
      expect(app.delivered()).toEqual([
        expect.objectContaining({
          outcome: 'conflict',
          status: 409,
          attempts: 0,
          handlerMs: undefined,
        }),
      ]);
      app.release();
      expect((await held).status).toBe(201);
      const other = await request(app.server)
        .post('/hook')
        .set('x-event-id', 'e3')
        .send('another body');
      expect(other.status).toBe(422);
      expect((await app.settled(3)).map((e) => [e.outcome, e.status])).toEqual([
        ['conflict', 409],
        ['first', 201],
        ['mismatch', 422],
      ]);
    } finally {
      await app.close();
    }
  });

  it('a store that is down: store_error with 503', async () => {
    const app = await start(unreachableStore());
    try {
      expect(
        (await request(app.server).post('/hook').set('x-event-id', 'e4').send('a')).status,
      ).toBe(503);
      expect(app.delivered()).toEqual([
        expect.objectContaining({ outcome: 'store_error', status: 503 }),
      ]);
    } finally {
      await app.close();
    }
  });

  it('transactional mode on SQLite: the handler time and the status of a first delivery and a failure', async () => {
    const sqlite = await storeKinds.find((kind) => kind.name === 'sqlite')!.open();
    const app = await start(sqlite.store, true);
    try {
      expect(
        (
          await request(app.server)
            .post('/hook')
            .set('x-event-id', 't1')
            .set('x-mode', 'slow')
            .send('a')
        ).status,
      ).toBe(201);
      expect(
        (
          await request(app.server)
            .post('/hook')
            .set('x-event-id', 't2')
            .set('x-mode', 'fail')
            .send('a')
        ).status,
      ).toBe(500);
      const [first, failed] = await app.settled(2);
      expect(first).toMatchObject({ outcome: 'first', status: 201, attempts: 1 });
      expect(first!.handlerMs).toBeGreaterThanOrEqual(30);
      expect(failed).toMatchObject({ outcome: 'failed', status: 500, attempts: 1 });
      const completed = app.events.find((e) => e.type === 'completed');
      expect(completed).toMatchObject({ handlerMs: first!.handlerMs });
      expect((completed as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      await app.close();
      await sqlite.close();
    }
  });
  it('transactional mode: a handler past its deadline is reported failed with the 503 the engine sent', async () => {
    const sqlite = await storeKinds.find((kind) => kind.name === 'sqlite')!.open();
    const app = await start(sqlite.store, true, 0.2);
    try {
      const answer = await request(app.server)
        .post('/hook')
        .set('x-event-id', 't3')
        .set('x-mode', 'hold')
        .send('a');
      expect(answer.status).toBe(503);
      const [timedOut] = await app.settled(1);
      expect(timedOut).toMatchObject({ outcome: 'failed', status: 503, attempts: 1 });
      expect(timedOut!.durationMs).toBeGreaterThanOrEqual(199); // a timer may fire a hair early
      const deadline = app.events.find((e) => e.type === 'handler-timeout');
      expect(deadline).toMatchObject({ timeoutMs: 200 });
      expect((deadline as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(199);
      app.release();
    } finally {
      await app.close();
      await sqlite.close();
    }
  });
});
