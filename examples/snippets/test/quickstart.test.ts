/** docs/quickstart.md: the store, then the same GitHub webhook on each framework, delivered twice. */
import request from 'supertest';
import { createStore } from '../src/quickstart';
import { expressApp } from '../src/quickstart-express';
import { fastifyApp } from '../src/quickstart-fastify';
import { koaApp } from '../src/quickstart-koa';
import { sqliteFile } from './helpers/databases';

type Server = Parameters<typeof request>[0];

const apps: Record<
  string,
  (
    store: Awaited<ReturnType<typeof createStore>>['store'],
  ) => Promise<{ server: Server; close(): Promise<void> }>
> = {
  express: async (store) => ({ server: expressApp(store), close: async () => undefined }),
  fastify: async (store) => {
    const app = await fastifyApp(store);
    await app.ready();
    return { server: app.server, close: () => app.close() };
  },
  koa: async (store) => ({ server: koaApp(store).callback(), close: async () => undefined }),
};

// Express's quickstart reads the body without a schema: only Fastify's and Koa's check one.
describe.each(['fastify', 'koa'])('quickstart on %s, its body schema', (framework) => {
  it('refuses a body that is not a GitHub event with 400 before the guard: no receipt', async () => {
    process.env.DATABASE_FILE = sqliteFile(`quickstart-schema-${framework}`);
    const { db, store } = await createStore();
    const { server, close } = await apps[framework]!(store);
    try {
      const refused = await request(server)
        .post('/webhooks/github')
        .set('content-type', 'application/json')
        .set('x-github-delivery', '72d3162e-cc78-11e3-81ab-4c9367dc0958')
        .send('{"action":{"name":"opened"}}'); // an object where a string belongs
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/action/);
      expect(db.prepare('SELECT count(*) AS n FROM webhook_receipts').get()).toEqual({ n: 0 });
    } finally {
      await close();
      db.close();
    }
  });
});

describe.each(Object.keys(apps))('quickstart on %s', (framework) => {
  it('runs the first delivery, replays the second, and keeps one completed receipt', async () => {
    process.env.DATABASE_FILE = sqliteFile(`quickstart-${framework}`);
    const { db, store } = await createStore();
    const { server, close } = await apps[framework]!(store);
    try {
      const app = server;
      // #region retry
      const delivery = () =>
        request(app)
          .post('/webhooks/github')
          .set('content-type', 'application/json')
          .set('x-github-delivery', '72d3162e-cc78-11e3-81ab-4c9367dc0958')
          .send('{"action":"opened"}');

      const first = await delivery();
      expect(first.status).toBe(200); // the handler ran
      expect(first.headers['idempotent-replayed']).toBeUndefined();

      const retry = await delivery();
      expect(retry.status).toBe(200); // the handler did not run again:
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.text).toBe(first.text); // the stored body, byte for byte

      const missing = await request(app)
        .post('/webhooks/github')
        .set('content-type', 'application/json')
        .send('{}');
      expect(missing.status).toBe(400); // no X-GitHub-Delivery: nothing to deduplicate on
      // #endregion retry
      expect(first.body).toMatchObject({ received: 'opened' });
      expect(
        db.prepare('SELECT provider, external_id, status, attempts FROM webhook_receipts').all(),
      ).toEqual([
        {
          provider: 'github',
          external_id: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
          status: 'completed',
          attempts: 1,
        },
      ]);
    } finally {
      await close();
      db.close();
    }
  });
});
