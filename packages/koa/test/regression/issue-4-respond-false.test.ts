/**
 * Regression: a Koa handler that bypasses Koa's response (`ctx.respond = false`, writing to
 * `ctx.res`) used to be recorded as `completed` with Koa's status text ("OK") as the body, which
 * every retry then replayed in place of the real answer (under the real answer's content-type).
 * The answer went out uncaptured, so it is not recorded: the receipt is marked failed with
 * ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED.
 */
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import Koa, { type Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import request from 'supertest';
import { idempotent } from '../../src';
import { listen } from '../helpers/apps';

it('a response written around Koa (ctx.respond = false) is never stored as a replay', async () => {
  const guard = new IdempotencyGuard(new InMemoryStore());
  const app = new Koa();
  let calls = 0;
  app.use(bodyParser());
  app.use(idempotent({ guard, provider: 'p', key: (ctx: Context) => ctx.get('x-event-id') || undefined }));
  app.use((ctx) => {
    calls++;
    ctx.respond = false;
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.end(JSON.stringify({ raw: calls }));
  });
  const { server, close } = await listen(app);
  try {
    const post = () => request(server).post('/hook').set('x-event-id', 'r1').send({ a: 1 });
    expect((await post()).body).toEqual({ raw: 1 });
    const receipt = await guard.find({ provider: 'p', externalId: 'r1' });
    expect(receipt).toMatchObject({ status: 'failed', response: null });
    expect(receipt?.error).toMatch(/ERR_IDEMPOTENCY_RESPONSE_NOT_CAPTURED/i);
    const again = await post();
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body).toEqual({ raw: 2 });
  } finally {
    await close();
  }
});
