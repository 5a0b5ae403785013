/** @module Runs the endpoint and the worker in one process (split them to scale each on its own). */
import { buildApp, buildWorker, connect, migrate } from './app';

async function main(): Promise<void> {
  const secret = process.env.STRIPE_WEBHOOK_SECRET;
  if (!secret)
    throw new Error('Set STRIPE_WEBHOOK_SECRET to the endpoint signing secret (whsec_…)');
  const dbs = connect({ databaseUrl: process.env.DATABASE_URL });
  await migrate(dbs);
  const port = Number(process.env.PORT ?? 3000);
  const server = buildApp(dbs, secret).listen(port, () =>
    console.log(`POST http://localhost:${port}/webhooks/stripe`),
  );
  const worker = buildWorker(dbs, secret);
  worker.start();
  process.once('SIGTERM', async () => {
    server.close();
    await worker.stop(); // finishes the deliveries in flight, gives back the rest
    await dbs.destroy();
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
