/** `c.get('idempotency')` is typed on the routes after the middleware without declaring the app's variables. */
import type { RequestIdempotency } from '@webhook-idempotency/core';
import { InMemoryStore } from '@webhook-idempotency/core';
import { Hono } from 'hono';
import { idempotent } from '../src';

describe('hono types', () => {
  it('types c.get("idempotency") through the middleware env', async () => {
    const app = new Hono();
    app.post(
      '/hook',
      idempotent({ store: new InMemoryStore(), provider: 'p', key: (c) => c.req.header('x-id') }),
      (c) => {
        const value: RequestIdempotency | undefined = c.get('idempotency');
        // @ts-expect-error a variable the middleware does not set
        c.get('not-set');
        return c.json({ attempts: value?.attempts ?? null });
      },
    );
    const res = await app.request('/hook', { method: 'POST', headers: { 'x-id': '1' }, body: '' });
    expect(await res.json()).toEqual({ attempts: 1 });
  });
});
