/**
 * `inbox(options)` on Koa (issue 12), against a real SQLite file and a listening server: stored
 * byte for byte and answered 200 at once, a duplicate answered without a second row, 401 with
 * nothing stored for a bad signature, 503 when the store is down, 400 without an id.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryStatus, providers } from '@webhook-idempotency/core';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import request from 'supertest';
import Koa from 'koa';
import { inbox, rawBodyParser } from '../src';

const SECRET = 'whsec_test_inbox';
const sign = (body: string) => {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
};
const event = (id: string) => `{ "id":"${id}",  "type":"invoice.paid" }`;

let db: Database.Database;
let deliveries: SqlInbox;
const opened: Array<() => Promise<unknown>> = [];

async function server(options: Record<string, unknown> = {}) {
  const app = new Koa();
  app.use(rawBodyParser());
  app.use(inbox({ inbox: deliveries, preset: providers.stripe({ secret: SECRET }), ...options }));
  app.use((ctx) => {
    ctx.body = { passed: true };
  });
  const listening = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  opened.push(() => new Promise<void>((resolve) => listening.close(() => resolve())));
  return listening;
}

const post = (app: Parameters<typeof request>[0], body: string, signature = sign(body)) =>
  request(app)
    .post('/webhooks/stripe')
    .set('content-type', 'application/json')
    .set('stripe-signature', signature)
    .set('authorization', 'Bearer secret')
    .send(body);

beforeEach(async () => {
  const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'koa-inbox-'));
  db = new Database(join(dir, 'inbox.db'));
  await InboxSchema.createTable(db);
  deliveries = new SqlInbox(db);
});
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
  if (db.open) db.close();
});

it('stores a verified delivery once, byte for byte and without credentials; a duplicate is 200 again', async () => {
  const app = await server();
  const body = event('evt_1');
  const first = await post(app, body);
  const second = await post(app, body);
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(first.body).toEqual({ received: true });
  expect(second.headers['idempotent-replayed']).toBe('true');
  const stored = await deliveries.list();
  expect(stored).toHaveLength(1);
  expect(stored[0]!.status).toBe(DeliveryStatus.PENDING);
  expect(stored[0]!.body.toString('utf8')).toBe(body);
  expect(stored[0]!.headers.authorization).toBeUndefined();
  expect(stored[0]!.headers['stripe-signature']).toMatch(/^t=/);
});

it('a bad signature is 401 and a delivery without an id 400, nothing stored', async () => {
  const app = await server();
  expect((await post(app, event('evt_forged'), sign(event('evt_x')))).status).toBe(401);
  expect((await post(app, '{"type":"invoice.paid"}')).status).toBe(400);
  expect(await deliveries.list()).toEqual([]);
});

it('a store that is down is 503 with Retry-After', async () => {
  const app = await server();
  db.close();
  const response = await post(app, event('evt_down'));
  expect(response.status).toBe(503);
  expect(response.headers['retry-after']).toBe('1');
});

it("a request without an id goes on to the route's handler with onMissingKey: 'passthrough'", async () => {
  const app = await server({ onMissingKey: 'passthrough' });
  const response = await post(app, '{"type":"ping"}');
  expect([response.status, response.body]).toEqual([200, { passed: true }]);
  expect(await deliveries.list()).toEqual([]);
});
