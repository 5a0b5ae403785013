/** What only the Hono adapter has: the body left readable, bodyLimit in front, app.use, HTTPException, the typed variable. */
import type { AddressInfo } from 'node:net';
import { IdempotencyGuard, InMemoryStore, RequestKey, type Store } from '@webhook-idempotency/core';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { idempotent, type IdempotencyVariables } from '../src';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppEnv, listen } from '@webhook-idempotency/adapter-conformance/apps/hono';

const key = (c: Context) => c.req.header('x-event-id');

async function served(app: Hono<AppEnv>) {
  const running = await listen(app);
  const { port } = running.server.address() as AddressInfo;
  const send = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${port}${path}`, init);
  const post = (path: string, id: string, body = '{"id":"evt_1",  "n": 1}') =>
    send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-event-id': id },
      body,
    });
  return { ...running, send, post };
}

describe('hono adapter specifics', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('leaves the body unread: c.req.raw is untouched, c.req.text() and c.req.json() work after the middleware read the bytes', async () => {
    const app = new Hono<AppEnv>();
    app.post('/hook', idempotent({ store: new InMemoryStore(), provider: 'p', key }), async (c) => {
      const unread = !c.req.raw.bodyUsed;
      const text = await c.req.text();
      const parsed = await c.req.json<{ id: string }>();
      return c.json({ unread, id: parsed.id, text, attempts: c.get('idempotency')?.attempts });
    });
    const server = await served(app);
    close = server.close;
    const first = await server.post('/hook', 'b1');
    expect(await first.json()).toEqual({
      unread: true,
      id: 'evt_1',
      text: '{"id":"evt_1",  "n": 1}',
      attempts: 1,
    });
    const again = await server.post('/hook', 'b1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('bodyLimit() in front answers 413 past its limit, before any claim', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    const app = new Hono<AppEnv>();
    app.post('/hook', bodyLimit({ maxSize: 8 }), idempotent({ store, provider: 'p', key }), (c) => {
      calls++;
      return c.text('ok');
    });
    const server = await served(app);
    close = server.close;
    expect((await server.post('/hook', 'l1')).status).toBe(413);
    expect(await new IdempotencyGuard(store as Store).find(new RequestKey('p', 'l1'))).toBeNull();
    expect((await server.post('/hook', 'l2', '{}')).status).toBe(200);
    expect(calls).toBe(1);
  });

  it('with app.use guards every POST after it and lets GET routes through', async () => {
    let calls = 0;
    const app = new Hono<{ Variables: IdempotencyVariables }>();
    app.use(idempotent({ store: new InMemoryStore(), provider: (c) => c.req.path, key }));
    app.get('/health', (c) => c.text(`ok ${c.get('idempotency') === undefined}`));
    app.post('/webhooks/:name', (c) => {
      calls++;
      return c.json({ name: c.req.param('name') }, 202);
    });
    const server = await served(app as unknown as Hono<AppEnv>);
    close = server.close;
    expect(await (await server.send('/health')).text()).toBe('ok true');
    expect((await server.post('/webhooks/a', 'u1')).status).toBe(202);
    const again = await server.post('/webhooks/a', 'u1');
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
    expect((await server.post('/webhooks/b', 'u1')).headers.get('idempotent-replayed')).toBeNull();
    expect(calls).toBe(2);
  });

  it("an HTTPException is answered by Hono's error handling, and the receipt is failed", async () => {
    const store = new InMemoryStore();
    let calls = 0;
    const app = new Hono<AppEnv>();
    app.onError((error, c) =>
      error instanceof HTTPException ? error.getResponse() : c.text('error', 500),
    );
    app.post('/hook', idempotent({ store, provider: 'p', key }), (c) => {
      if (++calls === 1) throw new HTTPException(400, { message: 'bad event' });
      return c.text('ok');
    });
    const server = await served(app);
    close = server.close;
    const first = await server.post('/hook', 'h1');
    expect([first.status, await first.text()]).toEqual([400, 'bad event']);
    expect(
      await new IdempotencyGuard(store as Store).find(new RequestKey('p', 'h1')),
    ).toMatchObject({ status: 'failed', error: expect.stringContaining('bad event') });
    expect((await server.post('/hook', 'h1')).status).toBe(200);
    expect(calls).toBe(2);
  });

  it("a run whose claim was taken over is answered 409 instead of the handler's answer, without its headers", async () => {
    let now = 1_000_000;
    const guard = new IdempotencyGuard(new InMemoryStore(), {
      staleAfterSeconds: 10,
      clock: () => now,
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let calls = 0;
    const app = new Hono<AppEnv>();
    app.post('/hook', idempotent({ guard, provider: 'p', key }), async (c) => {
      if (++calls === 1) {
        started();
        await held;
      }
      c.header('set-cookie', 'session=1');
      c.header('x-call', String(calls));
      return c.json({ call: calls });
    });
    const server = await served(app);
    close = server.close;
    const first = server.post('/hook', 't1');
    await running;
    now += 11_000; // the first claim is stale: the next delivery takes it over
    expect(await (await server.post('/hook', 't1')).json()).toEqual({ call: 2 });
    release();
    const lost = await first;
    expect(lost.status).toBe(409);
    expect(((await lost.json()) as { code: string }).code).toBe('ERR_IDEMPOTENCY_CLAIM_LOST');
    expect(lost.headers.get('set-cookie')).toBeNull();
    expect(lost.headers.get('x-call')).toBeNull();
  });

  it('exposes the factory as a named function', () => {
    expect(idempotent({ store: new InMemoryStore(), provider: 'p', key }).name).toBe('idempotency');
  });

  it("a deadline that passes while the answer is being read: the guard's 503 goes out, never the late 2xx", async () => {
    const db = new Database(join(mkdtempSync(join(tmpdir(), 'hono-deadline-')), 'db.sqlite'));
    await Schema.createTable(db);
    const guard = new IdempotencyGuard(new SqlStore(db), {
      transactional: true,
      handlerTimeoutSeconds: 0.2,
    });
    const app = new Hono<AppEnv>();
    app.post('/hook', idempotent({ guard, provider: 'p', key }), () => {
      // The body arrives after the deadline: the transaction is rolled back while it is read.
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 400));
          controller.enqueue(new TextEncoder().encode('{"booked":true}'));
          controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const server = await served(app);
    close = server.close;
    try {
      const response = await server.post('/hook', 'slow-body');
      expect(response.status).toBe(503);
      expect(await guard.find(new RequestKey('p', 'slow-body'))).toMatchObject({
        status: 'failed',
      });
    } finally {
      db.close();
    }
  });
});
