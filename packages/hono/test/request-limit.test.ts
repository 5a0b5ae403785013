/**
 * `maxRequestBytes` on Hono's `idempotent()` and `inbox()`: the body is counted while it is read
 * and refused with 413 once past the limit (or at once when `Content-Length` announces more),
 * before any signature check, claim or stored row, while the upload is still going (a client
 * that reads the answer stops there; the rest is read off for 16 MiB, a 1 s pause or 10 s at most).
 */
import type { AddressInfo } from 'node:net';
import { flood, type RunningApp } from '@webhook-idempotency/adapter-conformance';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';
import { Hono } from 'hono';
import { idempotent, inbox } from '../src';
import { type AppEnv, listen } from '@webhook-idempotency/adapter-conformance/apps/hono';

const MiB = 1024 * 1024;
const stripe = providers.stripe({ secret: 'whsec_test' });

describe('hono maxRequestBytes', () => {
  let app: RunningApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function serve(hono: Hono<AppEnv>): Promise<number> {
    app = await listen(hono);
    return (app.server.address() as AddressInfo).port;
  }

  it('answers 413 to a chunked body past the default 1 MiB while the upload is still going: no handler, no receipt', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    const hono = new Hono<AppEnv>();
    hono.post(
      '/hook',
      idempotent({ store, provider: 'p', key: (c) => c.req.header('x-event-id') }),
      (c) => {
        calls++;
        return c.text('ok');
      },
    );
    const port = await serve(hono);
    const big = await flood({
      port,
      path: '/hook',
      headers: { 'x-event-id': 'e1' },
      bytes: 64 * MiB,
    });
    expect(big.status).toBe(413);
    // The server answered while the upload was still going: it did not read the 64 MiB first.
    expect(big.sent).toBeLessThan(16 * MiB);
    const small = await flood({ port, path: '/hook', headers: { 'x-event-id': 'e2' }, bytes: MiB });
    expect(small.status).toBe(200);
    expect(calls).toBe(1);
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'e1'))).toBeNull();
  });

  it('answers 413 at once when Content-Length announces more than the limit, before the body is sent', async () => {
    const hono = new Hono<AppEnv>();
    hono.post(
      '/hook',
      idempotent({
        store: new InMemoryStore(),
        provider: 'p',
        key: () => 'k',
        maxRequestBytes: 100,
      }),
      (c) => c.text('ok'),
    );
    const port = await serve(hono);
    const announced = await flood({
      port,
      path: '/hook',
      headers: { 'content-length': String(64 * MiB) },
      bytes: 64 * MiB,
    });
    expect(announced.status).toBe(413);
    expect(announced.sent).toBeLessThan(16 * MiB);
    const exact = await flood({
      port,
      path: '/hook',
      headers: { 'content-length': '100' },
      bytes: 100,
    });
    expect(exact.status).toBe(200);
  });

  it('inbox(): an unsigned chunked body past maxRequestBytes is 413 before the signature check, nothing stored', async () => {
    let stored = 0;
    const deliveries = { enqueue: async () => ++stored > 0 } as never;
    const hono = new Hono<AppEnv>();
    hono.post(
      '/webhooks/stripe',
      inbox({ inbox: deliveries, preset: stripe, maxRequestBytes: MiB }),
    );
    const port = await serve(hono);
    const big = await flood({ port, path: '/webhooks/stripe', bytes: 64 * MiB });
    expect(big.status).toBe(413);
    expect(big.sent).toBeLessThan(16 * MiB);
    // Within the limit the signature is checked: unsigned is 401.
    expect((await flood({ port, path: '/webhooks/stripe', bytes: 1000 })).status).toBe(401);
    expect(stored).toBe(0);
  });

  it('refuses a bad maxRequestBytes with a ConfigError naming it', () => {
    for (const maxRequestBytes of [-1, 1.5, '1mb' as unknown as number]) {
      expect(() =>
        idempotent({ store: new InMemoryStore(), provider: 'p', key: () => 'k', maxRequestBytes }),
      ).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'maxRequestBytes' }));
      expect(() =>
        inbox({ inbox: { enqueue: async () => true } as never, preset: stripe, maxRequestBytes }),
      ).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'maxRequestBytes' }));
    }
  });
});
