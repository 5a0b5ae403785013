/** @module Starts the example: `PAYME_KEY=… pnpm start` (PLATFORM=fastify for the Fastify platform). */
import { createPaymeApp } from './app';

async function main() {
  const { app, shop } = await createPaymeApp({
    file: process.env.DATABASE_FILE ?? 'payme.sqlite',
    paymeKey: process.env.PAYME_KEY ?? 'local-cash-desk-key-0000000000000000',
    platform: process.env.PLATFORM === 'fastify' ? 'fastify' : 'express',
  });
  if (!shop.db.prepare('SELECT 1 FROM orders WHERE id = 1').get()) shop.createOrder(1, 10_000);
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, '127.0.0.1');
  console.log(`Payme endpoint: POST http://127.0.0.1:${port}/payme`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
