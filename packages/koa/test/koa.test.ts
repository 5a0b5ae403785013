/** The shared HTTP suite on Koa 3 and 2, then what only Koa has: app.use, web streams, Blob, bodyless 2xx. */
import { runAdapterConformance } from '@webhook-idempotency/adapter-conformance';
import { InMemoryStore } from '@webhook-idempotency/core';
import Koa, { type Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import request from 'supertest';
import { idempotent } from '../src';
import { koaApps, koaRawBodyApp, listen } from '@webhook-idempotency/adapter-conformance/apps/koa';

runAdapterConformance([...koaApps, koaRawBodyApp]);

describe('koa adapter specifics', () => {
  const key = (ctx: Context) => ctx.get('x-event-id') || undefined;

  async function app(answer: (ctx: Context) => void) {
    const koa = new Koa();
    let calls = 0;
    koa.use(bodyParser());
    koa.use(idempotent({ store: new InMemoryStore(), provider: 'p', key }));
    koa.use((ctx) => {
      calls++;
      answer(ctx);
    });
    const running = await listen(koa);
    const post = () => request(running.server).post('/any').set('x-event-id', '1').send({ a: 1 });
    return { ...running, post, calls: () => calls };
  }

  it.each<[string, (ctx: Context) => void, string]>([
    [
      'a web ReadableStream',
      (ctx) => {
        ctx.body = new Blob(['web ', 'stream']).stream();
      },
      'web stream',
    ],
    [
      'a Blob',
      (ctx) => {
        ctx.type = 'text/plain';
        ctx.body = new Blob(['blob body']);
      },
      'blob body',
    ],
    [
      'a 2xx with no body (Koa sends the status text)',
      (ctx) => {
        ctx.status = 202;
      },
      'Accepted',
    ],
  ])('guards every route after app.use and captures %s', async (_name, answer, text) => {
    const { post, close, calls } = await app(answer);
    try {
      const first = await post()
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect((first.body as Buffer).toString()).toBe(text);
      const again = await post()
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(again.status).toBe(first.status);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect((again.body as Buffer).toString()).toBe(text);
      expect(calls()).toBe(1);
    } finally {
      await close();
    }
  });

  it('a route that sets nothing (Koa 404) leaves the receipt failed and retries run again', async () => {
    const { post, close, calls } = await app(() => undefined);
    try {
      expect((await post()).status).toBe(404);
      expect((await post()).status).toBe(404);
      expect(calls()).toBe(2);
    } finally {
      await close();
    }
  });

  it('exposes the factory as a named function', () => {
    expect(idempotent({ store: new InMemoryStore(), provider: 'p', key }).name).toBe('idempotency');
  });
});
