/** `inbox(options, fallback)` on the fetch adapter (issue 12): the shared inbox suite behind a node:http ↔ fetch server, then its own limits. */
import { InMemoryStore } from '@webhook-idempotency/core';
import { running, runInboxConformance } from '@webhook-idempotency/adapter-conformance';
import request from 'supertest';
import { inbox, type FetchInboxOptions } from '../src';
import { fetchServer } from '@webhook-idempotency/adapter-conformance/apps/fetch';

const passed = () => Response.json({ passed: true });

runInboxConformance({
  name: 'fetch (node:http ↔ Request/Response)',
  start: (options) =>
    running(fetchServer(inbox(options as FetchInboxOptions, passed)).listen(0, '127.0.0.1')),
});

describe('the fetch inbox endpoint', () => {
  const store = { enqueue: async () => true } as never;

  it('answers 413 past maxRequestBytes and 405 to a read without a fallback; stores nothing', async () => {
    let stored = 0;
    const counting = { enqueue: async () => ++stored > 0 } as never;
    const app = await running(
      fetchServer(
        inbox({
          inbox: counting,
          provider: 'p',
          key: () => 'k',
          unverified: true,
          maxRequestBytes: 8,
        }),
      ).listen(0, '127.0.0.1'),
    );
    try {
      expect((await request(app.server).post('/').send('0123456789')).status).toBe(413);
      const read = await request(app.server).get('/');
      expect([read.status, read.headers.allow]).toEqual([405, 'POST']);
      expect(stored).toBe(0);
      expect((await request(app.server).post('/').send('0123')).status).toBe(200);
      expect(stored).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('refuses, at construction, a hand-on policy without a fallback, a fallback that is no function and a bad limit', () => {
    expect(() =>
      inbox({
        inbox: store,
        provider: 'p',
        key: () => 'k',
        unverified: true,
        onMissingKey: 'passthrough',
      }),
    ).toThrow(expect.objectContaining({ option: 'onMissingKey' }));
    expect(() =>
      inbox({ inbox: store, provider: 'p', key: () => 'k', unverified: true, maxRequestBytes: -1 }),
    ).toThrow(expect.objectContaining({ option: 'maxRequestBytes' }));
    expect(() =>
      inbox({ inbox: new InMemoryStore() as never, provider: 'p', key: () => 'k' }),
    ).toThrow(expect.objectContaining({ option: 'inbox' }));
    expect(() =>
      inbox({ inbox: store, provider: 'p', key: () => 'k', unverified: true }, 'no' as never),
    ).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'fallback' }));
  });
});
