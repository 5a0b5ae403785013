// docs/adapters/hono.md, "Deno": the server file as a Deno user writes it, type-checked by
// `deno check` and run by tests/runtimes/deno.test.ts with the permissions the docs give, from the
// packed tarballs (PORT, DATABASE_URL and GITHUB_WEBHOOK_SECRET from the test).
// #region server
import { Hono } from 'hono';
import pg from 'pg';
import { idempotent, type IdempotencyVariables } from '@webhook-idempotency/hono';
import * as providers from '@webhook-idempotency/providers';
import { Schema, SqlStore } from '@webhook-idempotency/sql';

const pool = new pg.Pool({ connectionString: Deno.env.get('DATABASE_URL') });
await pool.query(
  'CREATE TABLE IF NOT EXISTS pushes (delivery_id TEXT PRIMARY KEY, ref TEXT NOT NULL)',
);
await Schema.createTable(pool); // once, before serving: a migration step in a real app

const app = new Hono<{ Variables: IdempotencyVariables<pg.PoolClient> }>();
app.post(
  '/webhooks/github',
  idempotent({
    store: new SqlStore(pool),
    preset: providers.github({ secret: Deno.env.get('GITHUB_WEBHOOK_SECRET')! }),
    transactional: true, // the push and the receipt commit together
  }),
  async (c) => {
    const push = await c.req.json();
    // The open transaction: a PoolClient of the pool, inside BEGIN.
    await c
      .get('idempotency')!
      .transaction!.query('INSERT INTO pushes (delivery_id, ref) VALUES ($1, $2)', [
        c.req.header('x-github-delivery'),
        push.ref,
      ]);
    return c.json({ received: true });
  },
);

Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
// #endregion server
