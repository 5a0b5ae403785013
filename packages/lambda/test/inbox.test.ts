/**
 * Inbox mode on Lambda: the shared inbox suite behind the event server (REST API and HTTP API
 * events), then the worker function draining the inbox within the function's remaining time.
 */
import {
  lambdaContext,
  lambdaServer,
  v2Event,
} from '@webhook-idempotency/adapter-conformance/apps/lambda';
import { running, runInboxConformance } from '@webhook-idempotency/adapter-conformance';
import { ConfigError, InMemoryStore } from '@webhook-idempotency/core';
import { InMemoryInbox } from '@webhook-idempotency/core/inbox';
import { inbox, inboxWorker, type LambdaInboxOptions } from '../src';

const passed = () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: '{"passed":true}',
});

for (const source of ['v1', 'v2'] as const)
  runInboxConformance({
    name: `lambda (${source} events)`,
    start: (options) =>
      running(
        lambdaServer(source, inbox(options as LambdaInboxOptions, passed) as never).listen(
          0,
          '127.0.0.1',
        ),
      ),
  });

const delivery = (id: string) =>
  v2Event({
    method: 'POST',
    path: '/hook',
    headers: [
      ['content-type', 'application/json'],
      ['x-id', id],
    ],
    body: `{"id":"${id}"}`,
  });

/** An endpoint storing into `store`, and `n` deliveries sent through it. */
async function stored(store: InMemoryInbox, n: number): Promise<void> {
  const endpoint = inbox({
    inbox: store,
    provider: 'p',
    key: (request) => request.headers['x-id'],
    unverified: true,
  });
  for (let i = 0; i < n; i++)
    expect(await endpoint(delivery(`d${i}`), lambdaContext())).toMatchObject({ statusCode: 200 });
}

describe('the inbox worker function', () => {
  it('drains what is due in rounds, each delivery once, and says it emptied the inbox', async () => {
    const store = new InMemoryInbox();
    await stored(store, 5);
    const seen: string[] = [];
    const handler = inboxWorker({
      inbox: store,
      store: new InMemoryStore(),
      concurrency: 2,
      groupSize: 1,
      visibilityTimeoutSeconds: 5,
      handlers: { p: async (d) => void seen.push(d.externalId) },
    });
    const result = await handler({ 'detail-type': 'Scheduled Event' }, lambdaContext(60_000));
    expect(result).toEqual({ claimed: 5, rounds: 4, stoppedBy: 'empty' });
    expect(seen.sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
    expect(await handler({}, lambdaContext(60_000))).toEqual({
      claimed: 0,
      rounds: 1,
      stoppedBy: 'empty',
    });
  });

  it('starts no round that would not fit in the time left: the rest waits for the next invocation', async () => {
    const store = new InMemoryInbox();
    await stored(store, 3);
    const seen: string[] = [];
    const handler = inboxWorker({
      inbox: store,
      store: new InMemoryStore(),
      concurrency: 1,
      groupSize: 1,
      visibilityTimeoutSeconds: 1,
      timeMarginMs: 0,
      handlers: {
        p: async (d) => {
          seen.push(d.externalId);
          // Each round takes 0.4 s of the 1.5 s: the third would not fit in the lease left.
          await new Promise((resolve) => setTimeout(resolve, 400));
        },
      },
    });
    const first = await handler({}, lambdaContext(1500));
    expect(first).toMatchObject({ stoppedBy: 'time' });
    expect(first.claimed).toBeLessThan(3);
    expect(seen).toHaveLength(first.claimed);
    const second = await handler({}, lambdaContext(60_000));
    expect(first.claimed + second.claimed).toBe(3);
    expect(new Set(seen).size).toBe(3);
  });

  it('refuses a function whose remaining time cannot hold one round, naming the option', async () => {
    const handler = inboxWorker({
      inbox: new InMemoryInbox(),
      store: new InMemoryStore(),
      visibilityTimeoutSeconds: 30,
      handlers: { p: async () => undefined },
    });
    const error = await handler({}, lambdaContext(10_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ option: 'visibilityTimeoutSeconds' });
  });
});

describe('the inbox endpoint', () => {
  it('answers 413 past maxRequestBytes and 405 to a read without a fallback; stores nothing', async () => {
    const events: string[] = [];
    const endpoint = inbox({
      inbox: new InMemoryInbox(),
      provider: 'p',
      key: (request) => request.headers['x-id'],
      unverified: true,
      maxRequestBytes: 4,
      onEvent: (event) => events.push(event.type),
    });
    expect(await endpoint(delivery('big'), lambdaContext())).toMatchObject({ statusCode: 413 });
    const read = v2Event({ method: 'GET', path: '/hook', headers: [['x-id', 'r']] });
    expect(await endpoint(read, lambdaContext())).toMatchObject({
      statusCode: 405,
      headers: { allow: 'POST' },
    });
    expect(events).toEqual([]);
  });
});
