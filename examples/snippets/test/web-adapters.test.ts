/**
 * docs/adapters/fetch.md, docs/adapters/hono.md and their READMEs: the fetch route handlers called
 * with Requests as Next.js, Bun or Deno would, the Hono apps served by @hono/node-server.
 */
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { InMemoryStore } from '@webhook-idempotency/core';
import request from 'supertest';
import * as fetchSnippets from '../src/fetch';
import { POST as minimalPost } from '../src/fetch-route';
import * as honoSnippets from '../src/hono';
import { sqliteFile } from './helpers/databases';

const DELIVERY = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const secret = 'snippet secret';
const sign = (body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const githubHeaders = (body: string, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  'x-github-delivery': DELIVERY,
  'x-github-event': 'issues',
  'x-hub-signature-256': sign(body),
  ...extra,
});
const paymentBody = JSON.stringify({ data: { object: { id: 'pi_1', amount: 500 } } });

/** A Request as a provider sends it. */
const post = (path: string, body: string, headers: Record<string, string>) =>
  new Request(`http://localhost${path}`, { method: 'POST', headers, body });

const serve = (app: { fetch: (request: Request) => Response | Promise<Response> }) =>
  createAdaptorServer({ fetch: (request) => app.fetch(request) }) as Server;

describe('fetch route handlers', () => {
  it('minimal: first delivery, replay, 400 naming the missing header, 422 for another body, 400 for a body the schema refuses', async () => {
    const POST = minimalPost;
    const body = '{"action":"opened"}';
    const headers = { 'content-type': 'application/json', 'x-github-delivery': DELIVERY };
    const first = await POST(post('/api/webhooks/github', body, headers));
    expect([first.status, await first.json()]).toEqual([200, { received: 'opened', attempts: 1 }]);
    const retry = await POST(post('/api/webhooks/github', body, headers));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ received: 'opened', attempts: 1 });
    const missing = await POST(
      post('/api/webhooks/github', body, { 'content-type': 'application/json' }),
    );
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(
      /X-GitHub-Delivery header/,
    );
    expect((await POST(post('/api/webhooks/github', '{"action":"closed"}', headers))).status).toBe(
      422,
    );
    // A body the schema refuses: 400 with its issues, not recorded (a redelivery runs again).
    const other = { ...headers, 'x-github-delivery': 'refused-1' };
    const refused = await POST(post('/api/webhooks/github', '{"action":5}', other));
    expect([refused.status, await refused.json()]).toEqual([
      400,
      { errors: [], properties: { action: { errors: [expect.any(String)] } } },
    ]);
    const again = await POST(post('/api/webhooks/github', '{"action":5}', other));
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([400, null]);
  });

  it('preset: the GitHub signature verifies over the bytes as sent; 413 past maxRequestBytes', async () => {
    const POST = fetchSnippets.presetRoute(new InMemoryStore(), secret);
    const body = '{"action":  "opened"}';
    const first = await POST(post('/gh', body, githubHeaders(body)));
    expect([first.status, await first.json()]).toEqual([200, { received: 'issues' }]);
    const again = await POST(post('/gh', body, githubHeaders(body)));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const reserialised = githubHeaders(body, {
      'x-hub-signature-256': sign(JSON.stringify(JSON.parse(body))),
    });
    expect((await POST(post('/gh', body, reserialised))).status).toBe(401);
    const big = JSON.stringify({ action: 'x'.repeat(512 * 1024) });
    expect((await POST(post('/gh', big, githubHeaders(big)))).status).toBe(413);
  });

  it('the transaction: one payment row however often the event arrives; a body that is not a payment gets 400, nothing committed', async () => {
    const { POST, db } = await fetchSnippets.transactionRoute(sqliteFile('fetch-tx'));
    try {
      const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_1' };
      expect(await (await POST(post('/pay', paymentBody, headers))).json()).toEqual({
        received: true,
      });
      const again = await POST(post('/pay', paymentBody, headers));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      const text = JSON.stringify({ data: { object: { id: 'pi_2', amount: 'five' } } });
      const refused = await POST(post('/pay', text, { ...headers, 'webhook-id': 'evt_2' }));
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await refused.json())).toMatch(/amount/);
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      expect(
        db.prepare("SELECT status FROM webhook_receipts WHERE external_id = 'evt_2'").all(),
      ).toEqual([{ status: 'failed' }]); // nothing committed; the provider's retry runs again
    } finally {
      db.close();
    }
  });
});

describe('hono apps', () => {
  it('minimal: first delivery, replay, 400 naming the missing header, 422 for another body, 400 for a body the schema refuses', async () => {
    const server = serve(honoSnippets.minimalApp());
    const github = (body = '{"action":"opened"}') =>
      request(server)
        .post('/webhooks/github')
        .set('content-type', 'application/json')
        .set('x-github-delivery', DELIVERY)
        .send(body);
    const first = await github().expect(200);
    expect(first.body).toEqual({ received: 'opened', attempts: 1 });
    const retry = await github().expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    const missing = await request(server)
      .post('/webhooks/github')
      .set('content-type', 'application/json')
      .send('{}')
      .expect(400);
    expect(missing.body.message).toMatch(/X-GitHub-Delivery header/);
    await github('{"action":"closed"}').expect(422);
    // A body the schema refuses: 400 with its issues, not recorded (a redelivery runs again).
    const refuse = () =>
      request(server)
        .post('/webhooks/github')
        .set('content-type', 'application/json')
        .set('x-github-delivery', 'refused-1')
        .send('{"action":5}');
    const refused = await refuse().expect(400);
    expect(refused.body).toEqual({
      errors: [],
      properties: { action: { errors: [expect.any(String)] } },
    });
    const again = await refuse().expect(400);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('preset with maxRequestBytes: the signature verifies over the bytes as sent; 413 past the limit', async () => {
    const server = serve(honoSnippets.presetApp(new InMemoryStore(), secret));
    const send = (body: string, headers = githubHeaders(body)) =>
      request(server).post('/webhooks/github').set(headers).send(body);
    const body = '{"action":  "opened"}';
    await send(body).expect(200, { received: 'issues' });
    await send(body).expect(200).expect('idempotent-replayed', 'true');
    await send(
      body,
      githubHeaders(body, { 'x-hub-signature-256': sign(JSON.stringify(JSON.parse(body))) }),
    ).expect(401);
    const big = JSON.stringify({ action: 'x'.repeat(512 * 1024) });
    await send(big).expect(413);
  });

  it('the transaction: one payment row however often the event arrives; a body that is not a payment gets 400, nothing committed', async () => {
    const { app, db } = await honoSnippets.transactionApp(sqliteFile('hono-tx'));
    try {
      const server = serve(app);
      const pay = (id = 'evt_1', body = paymentBody) =>
        request(server)
          .post('/webhooks/payments')
          .set('content-type', 'application/json')
          .set('webhook-id', id)
          .send(body);
      await pay().expect(200, { received: true });
      await pay().expect(200).expect('idempotent-replayed', 'true');
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      const text = JSON.stringify({ data: { object: { id: 'pi_2', amount: 'five' } } });
      const refused = await pay('evt_2', text).expect(400);
      expect(JSON.stringify(refused.body)).toMatch(/amount/);
      expect(db.prepare('SELECT count(*) AS n FROM payments').get()).toEqual({ n: 1 });
      expect(
        db.prepare("SELECT status FROM webhook_receipts WHERE external_id = 'evt_2'").all(),
      ).toEqual([{ status: 'failed' }]); // nothing committed; the provider's retry runs again
    } finally {
      db.close();
    }
  });

  it('app.use on /webhooks/*: provider from the path, /health unguarded', async () => {
    const store = new InMemoryStore();
    const server = serve(honoSnippets.appWideApp(store));
    const send = (provider: string) =>
      request(server)
        .post(`/webhooks/${provider}`)
        .set('content-type', 'application/json')
        .set('webhook-id', 'msg_1')
        .send('{"a":1}');
    await send('stripe').expect(200, { handled: '/webhooks/stripe', attempts: 1 });
    await send('stripe').expect(200).expect('idempotent-replayed', 'true');
    await send('shop-a').expect(200, { handled: '/webhooks/shop-a', attempts: 1 });
    await request(server).get('/health').expect(200, 'ok');
    expect(store.size).toBe(2);
  });
});
