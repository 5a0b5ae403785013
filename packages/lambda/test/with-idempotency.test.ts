/**
 * What only the Lambda adapter has: the function's remaining time bounding the run (on the
 * in-memory store and, transactional, on SQLite), the body limit, results a source would refuse,
 * and its options.
 */
import { lambdaContext, v2Event } from '@webhook-idempotency/adapter-conformance/apps/lambda';
import {
  ConfigError,
  IdempotencyGuard,
  InMemoryStore,
  RequestKey,
  type Store,
} from '@webhook-idempotency/core';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { type LambdaRequest, withIdempotency } from '../src';

const key = (request: LambdaRequest) => request.headers['x-id'];
const event = (id: string, body = '{"n":1}', method = 'POST') =>
  v2Event({
    method,
    path: '/hook',
    headers: [
      ['content-type', 'application/json'],
      ['x-id', id],
    ],
    body,
  });

describe('the function’s remaining time', () => {
  it('a handler still running timeMarginMs before the timeout: 503 + Retry-After, receipt failed, the retry runs it again', async () => {
    const store = new InMemoryStore();
    let calls = 0;
    const handler = withIdempotency({ store, provider: 'p', key, timeMarginMs: 1000 }, async () => {
      // The first run hangs past the function's time; the retry answers.
      if (++calls === 1) await new Promise(() => undefined);
      return { statusCode: 200, body: 'done' };
    });
    const outOfTime = await handler(event('t1'), lambdaContext(1200));
    expect(outOfTime).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '1' },
    });
    expect(JSON.parse((outOfTime as { body: string }).body)).toMatchObject({
      code: 'ERR_IDEMPOTENCY_HANDLER_TIMEOUT',
    });
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 't1'))).toMatchObject({
      status: 'failed',
    });
    expect(await handler(event('t1'), lambdaContext(30_000))).toMatchObject({
      statusCode: 200,
      body: 'done',
    });
    expect(calls).toBe(2);
  });

  it('transactional on SQLite: the writes of a run out of time are rolled back', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE effects (id TEXT PRIMARY KEY)');
    await Schema.createTable(db);
    const store = new SqlStore(db) as Store<unknown>;
    let calls = 0;
    const handler = withIdempotency(
      { store, provider: 'p', key, transactional: true, timeMarginMs: 1000 },
      async () => {
        // better-sqlite3 has one connection: a write through it is a write in the run's transaction.
        calls++;
        db.prepare('INSERT INTO effects (id) VALUES (?)').run(`run-${calls}`);
        if (calls === 1) await new Promise(() => undefined);
        return { statusCode: 200, body: 'done' };
      },
    );
    expect(await handler(event('s1'), lambdaContext(1200))).toMatchObject({ statusCode: 503 });
    expect(await handler(event('s1'), lambdaContext(30_000))).toMatchObject({ statusCode: 200 });
    expect(db.prepare('SELECT id FROM effects').all()).toEqual([{ id: 'run-2' }]);
    db.close();
  });

  it('without a context (a direct call), the run is not bounded', async () => {
    const handler = withIdempotency({ store: new InMemoryStore(), provider: 'p', key }, () => ({
      statusCode: 200,
      body: 'ok',
    }));
    expect(await handler(event('n1'), undefined as never)).toMatchObject({ statusCode: 200 });
  });
});

describe('withIdempotency', () => {
  it('answers 413 past maxRequestBytes before the guard runs, in the source’s shape', async () => {
    const handler = jest.fn(() => ({ statusCode: 200, body: 'ok' }));
    const guarded = withIdempotency(
      { store: new InMemoryStore(), provider: 'p', key, maxRequestBytes: 8 },
      handler,
    );
    expect(await guarded(event('b1', '0123456789'), lambdaContext())).toMatchObject({
      statusCode: 413,
      body: 'Request body larger than the limit of 8 bytes',
    });
    expect(handler).not.toHaveBeenCalled();
    expect(await guarded(event('b1', '0123'), lambdaContext())).toMatchObject({ statusCode: 200 });
  });

  it('a REST API result without a statusCode fails the receipt with a TypeError', async () => {
    const store = new InMemoryStore();
    const guarded = withIdempotency({ store, provider: 'p', key }, () => ({ ok: true }) as never);
    const rest = {
      ...event('r1'),
      version: '1.0',
      httpMethod: 'POST',
      path: '/hook',
      headers: { 'X-Id': 'r1' },
      requestContext: { stage: 'prod' },
    };
    await expect(guarded(rest as never, lambdaContext())).rejects.toThrow(
      /without a numeric statusCode, not a Lambda HTTP result/,
    );
    expect(await new IdempotencyGuard(store).find(new RequestKey('p', 'r1'))).toMatchObject({
      status: 'failed',
    });
  });

  it('passes reads through unguarded, with no guard value', async () => {
    const seen: unknown[] = [];
    const guarded = withIdempotency(
      { store: new InMemoryStore(), provider: 'p', key },
      (_event, idempotency) => {
        seen.push(idempotency);
        return { statusCode: 200, body: 'read' };
      },
    );
    await guarded(event('g1', '', 'GET'), lambdaContext());
    await guarded(event('g1', '', 'GET'), lambdaContext());
    expect(seen).toEqual([undefined, undefined]);
  });

  it('checks options when it is called: a ConfigError naming the option', () => {
    const store = new InMemoryStore();
    const ok = () => ({ statusCode: 200, body: '' });
    expect(() => withIdempotency({ store, provider: 'p', key, timeMarginMs: -1 }, ok)).toThrow(
      expect.objectContaining({ option: 'timeMarginMs' }),
    );
    expect(() => withIdempotency({ store, provider: 'p', key, maxRequestBytes: 1.5 }, ok)).toThrow(
      expect.objectContaining({ option: 'maxRequestBytes' }),
    );
    expect(() => withIdempotency({ store, provider: 'p' }, ok)).toThrow(ConfigError);
    expect(() => withIdempotency({ store, provider: 'p', key }, undefined as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', option: 'handler' }),
    );
  });
});
