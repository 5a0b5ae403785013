/** @module Starts the example on PORT (default 3000) with a SQLite file (default ./payments.sqlite). */
import { createPaymentApp } from './app';
import { createOrder } from './shop';

async function main(): Promise<void> {
  const paymeKey = process.env.PAYME_KEY ?? 'demo-cash-desk-key-000000000000000000';
  const { app, db } = await createPaymentApp({
    file: process.env.DATABASE_FILE ?? 'payments.sqlite',
    paymeKey,
  });
  if (!db.prepare('SELECT 1 FROM orders WHERE id = 1').get()) createOrder(db, 1, 500_000);
  const port = Number(process.env.PORT ?? 3000);
  app.listen(port, () =>
    console.log(`Payme endpoint on http://localhost:${port}/payme (order 1 awaits 500000 tiyin)`),
  );
}

void main();
