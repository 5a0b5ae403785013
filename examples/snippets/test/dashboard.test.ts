/** The dashboard README's app: admins see the overview, anyone else gets 401. */
import Database from 'better-sqlite3';
import type { RequestHandler } from 'express';
import request from 'supertest';
import { InboxSchema, Schema } from '@webhook-idempotency/sql';
import { dashboardApp } from '../src/dashboard';

it('serves the dashboard to admins only', async () => {
  const db = new Database(':memory:');
  await Schema.createTable(db);
  await InboxSchema.createTable(db);
  const login: RequestHandler = (req, _res, next) => {
    if (req.headers['x-user'] === 'admin') Object.assign(req, { user: { role: 'admin' } });
    next();
  };
  const app = dashboardApp(db, login);
  const page = await request(app).get('/admin/webhooks/').set('x-user', 'admin');
  expect(page.status).toBe(200);
  expect(page.text).toContain('Receipts by provider');
  expect((await request(app).get('/admin/webhooks/')).status).toBe(401);
  db.close();
});
