/** @module Serves the example on PORT (default 3000): PostgreSQL when DATABASE_URL is set, SQLite otherwise. */
import { buildApp, connect, migrate } from './app';

async function main(): Promise<void> {
  const signingSecret = process.env.STRIPE_WEBHOOK_SECRET;
  if (!signingSecret)
    throw new Error('Set STRIPE_WEBHOOK_SECRET to the endpoint signing secret (whsec_…)');
  const db = connect({ databaseUrl: process.env.DATABASE_URL });
  await migrate(db);
  const app = await buildApp(db, { signingSecret, databaseUrl: process.env.DATABASE_URL });
  await app.listen({ port: Number(process.env.PORT ?? 3000), host: '0.0.0.0' });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
