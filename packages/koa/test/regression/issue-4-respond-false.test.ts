/**
 * Regression: a Koa handler that bypasses Koa's response (`ctx.respond = false`, writing to
 * `ctx.res`) used to be recorded as `completed` with Koa's status text ("OK") as the body, which
 * every retry then replayed in place of the real answer (under the real answer's content-type).
 * Issue 8 (item 2): only the status of an answer sent around Koa is known. A 2xx means the
 * provider saw success: the run is recorded as completed with that status and an empty body, and
 * a retry is replayed (never Koa's status text, never a second run); anything else marks the
 * receipt failed with ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED.
 */
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import Koa, { type Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import request from 'supertest';
import { idempotent } from '../../src';
import { listen } from '@webhook-idempotency/adapter-conformance/apps/koa';

it.each([
  [200, 'completed'],
  [502, 'failed'],
])(
  'a raw %i written around Koa (ctx.respond = false) leaves the receipt %s',
  async (status, outcome) => {
    const guard = new IdempotencyGuard(new InMemoryStore());
    const app = new Koa();
    let calls = 0;
    app.use(bodyParser());
    app.use(
      idempotent({
        guard,
        provider: 'p',
        key: (ctx: Context) => ctx.get('x-event-id') || undefined,
      }),
    );
    app.use((ctx) => {
      calls++;
      ctx.respond = false;
      ctx.res.writeHead(status, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ raw: calls }));
    });
    const { server, close } = await listen(app);
    try {
      const post = () => request(server).post('/hook').set('x-event-id', 'r1').send({ a: 1 });
      expect((await post()).body).toEqual({ raw: 1 });
      const receipt = await guard.find({ provider: 'p', externalId: 'r1' });
      expect(receipt).toMatchObject({ status: outcome });
      const again = await post();
      if (outcome === 'failed') {
        expect(receipt).toMatchObject({ response: null });
        expect(receipt?.error).toMatch(/ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED/i);
        expect(again.headers['idempotent-replayed']).toBeUndefined();
        expect(again.body).toEqual({ raw: 2 });
      } else {
        expect(receipt?.response).not.toMatch(/OK/);
        expect(again.status).toBe(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.text ?? '').toBe('');
        expect(calls).toBe(1);
      }
    } finally {
      await close();
    }
  },
);
