/** The shared HTTP suite on Fastify 5 and 4, then what only Fastify has: encapsulation, route config, onSend payloads. */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';
import { InMemoryStore } from '@webhook-idempotency/core';
import fastify, { type FastifyRequest } from 'fastify';
import request from 'supertest';
import * as entry from '../src';
import fastifyIdempotencyDefault, { fastifyIdempotency, rawBodyJsonParser } from '../src';
import { fastifyApps, listen } from '@webhook-idempotency/adapter-conformance/apps/fastify';

runAdapterConformance(fastifyApps);

describe('fastify plugin specifics', () => {
  const key = (req: FastifyRequest) => req.headers['x-event-id'] as string | undefined;

  it('guards only the routes of its encapsulation context; a route opts out with config.idempotency: false', async () => {
    const app = fastify();
    let calls = 0;
    await app.register(async (hooks) => {
      await hooks.register(fastifyIdempotency, { store: new InMemoryStore(), provider: 'p', key });
      hooks.post('/guarded', async () => ({ n: ++calls }));
      hooks.post('/opted-out', { config: { idempotency: false } }, async () => ({ n: ++calls }));
    });
    app.post('/outside', async () => ({ n: ++calls }));
    const { server, close } = await listen(app);
    try {
      for (const path of ['/guarded', '/opted-out', '/outside']) {
        await request(server).post(path).set('x-event-id', '1').send({});
        const again = await request(server).post(path).set('x-event-id', '1').send({});
        expect([path, again.headers['idempotent-replayed']]).toEqual([
          path,
          path === '/guarded' ? 'true' : undefined,
        ]);
      }
      expect(calls).toBe(5);
    } finally {
      await close();
    }
  });

  it('with global: false guards only routes that opt in, with their own options over the plugin options', async () => {
    const app = fastify();
    const store = new InMemoryStore();
    await app.register(async (hooks) => {
      await hooks.register(fastifyIdempotency, { global: false, store, provider: 'p', key });
      hooks.post('/plain', async () => 'plain');
      hooks.post('/in', { config: { idempotency: true } }, async () => 'in');
      hooks.post(
        '/other',
        { config: { idempotency: { provider: 'other', replayedHeader: 'X-Replay' } } },
        async () => 'other',
      );
    });
    const { server, close } = await listen(app);
    try {
      const send = (path: string) => request(server).post(path).set('x-event-id', '7').send({});
      await send('/plain');
      expect((await send('/plain')).headers['idempotent-replayed']).toBeUndefined();
      await send('/in');
      expect((await send('/in')).headers['idempotent-replayed']).toBe('true');
      await send('/other');
      expect((await send('/other')).headers['x-replay']).toBe('true');
      expect(
        store
          .list()
          .map((r) => r.provider)
          .sort(),
      ).toEqual(['other', 'p']);
    } finally {
      await close();
    }
  });

  it('invalid options fail the registration with a ConfigError naming the option', async () => {
    const app = fastify();
    await expect(
      app
        .register(fastifyIdempotency, {
          store: new InMemoryStore(),
          provider: 'p',
          key,
          maxResponseBytes: -5,
        })
        .ready(),
    ).rejects.toMatchObject({
      option: 'maxResponseBytes',
    });
  });

  it('keeps the raw bytes with rawBodyJsonParser and answers malformed JSON with 400', async () => {
    const app = fastify();
    await app.register(async (hooks) => {
      hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
      await hooks.register(fastifyIdempotency, {
        store: new InMemoryStore(),
        provider: 'p',
        key,
        verify: (_req, raw) => raw?.toString() === '{"a" : 1}',
      });
      hooks.post('/hook', async (req) => ({ body: req.body }));
    });
    const { server, close } = await listen(app);
    try {
      const ok = await request(server)
        .post('/hook')
        .set('content-type', 'application/json')
        .set('x-event-id', '1')
        .send('{"a" : 1}');
      expect(ok.body).toEqual({ body: { a: 1 } });
      expect(
        (
          await request(server)
            .post('/hook')
            .set('content-type', 'application/json')
            .set('x-event-id', '2')
            .send('{"a":1}')
        ).status,
      ).toBe(401);
      expect(
        (
          await request(server)
            .post('/hook')
            .set('content-type', 'application/json')
            .set('x-event-id', '3')
            .send('{nope')
        ).status,
      ).toBe(400);
    } finally {
      await close();
    }
  });

  it('exports the plugin as fastifyIdempotency and as the default export, under its fastify-plugin name', () => {
    expect(fastifyIdempotencyDefault).toBe(fastifyIdempotency);
    expect(Object.keys(entry).sort()).toEqual([
      'default',
      'fastifyIdempotency',
      'inbox',
      'rawBodyJsonParser',
    ]);
    expect(
      (fastifyIdempotency as unknown as Record<symbol, unknown>)[
        Symbol.for('fastify.display-name')
      ],
    ).toBe('@webhook-idempotency/fastify');
  });
});
