/**
 * A body over `maxRequestBytes` on Node through @hono/node-server: every sender reads the 413,
 * whether it announced its length or sent it chunked, on a connection of its own or one kept alive
 * and reused; neither `idempotent()`'s handler nor `inbox()`'s store is reached. The same
 * middleware on Bun, Deno and workerd: tests/runtimes, examples/cloudflare-d1.
 */
import { type AppEnv, listen } from '@webhook-idempotency/adapter-conformance/apps/hono';
import type { RunningApp } from '@webhook-idempotency/adapter-conformance';
import { InMemoryStore } from '@webhook-idempotency/core';
import {
  allAnswered,
  SENDER_KINDS,
  sendOversized,
} from '@webhook-idempotency/test-support/oversized';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { idempotent, inbox } from '../../src';

const MiB = 1024 * 1024;
const ROUNDS = 10;

describe('hono on @hono/node-server: a 2 MiB body over a 1 MiB limit', () => {
  let app: RunningApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it(`the sender reads the 413 every time (${ROUNDS} rounds of ${SENDER_KINDS.length} senders, to idempotent() and to inbox()); nothing runs, nothing is stored`, async () => {
    let calls = 0;
    let stored = 0;
    const hono = new Hono<AppEnv>();
    hono.post(
      '/hook',
      idempotent({
        store: new InMemoryStore(),
        provider: 'p',
        key: (c) => c.req.header('x-event-id'),
      }),
      (c) => {
        calls++;
        return c.text('ok');
      },
    );
    hono.post(
      '/inbox',
      inbox({
        inbox: { enqueue: async () => ++stored > 0 } as never,
        provider: 'p',
        key: (c) => c.req.header('x-event-id'),
        unverified: true,
      }),
    );
    app = await listen(hono);
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    for (const path of ['/hook', '/inbox']) {
      const outcomes = await sendOversized({
        url,
        path,
        bytes: 2 * MiB,
        rounds: ROUNDS,
        headers: { 'x-event-id': 'evt_big' },
      });
      expect(outcomes).toHaveLength(ROUNDS * SENDER_KINDS.length);
      expect(outcomes).toEqual(allAnswered(outcomes, 413));
    }
    expect([calls, stored]).toEqual([0, 0]);
  });
});
