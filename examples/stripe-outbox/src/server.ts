/**
 * @module Runs the endpoint and the dispatcher in one process (split them to scale each on its
 * own: the dispatcher is `createDispatcher(shop, …).start()` in a process of its own), and stops
 * the dispatcher on SIGTERM.
 */
import nodemailer from 'nodemailer';
import { createDispatcher, createShop } from './app';

async function main(): Promise<void> {
  const secret = process.env.STRIPE_WEBHOOK_SECRET;
  if (!secret)
    throw new Error('Set STRIPE_WEBHOOK_SECRET to the endpoint signing secret (whsec_…)');
  const shop = await createShop({
    file: process.env.DATABASE_FILE ?? 'stripe-outbox.sqlite',
    signingSecret: secret,
    warehouseUrl: process.env.WAREHOUSE_URL ?? 'http://127.0.0.1:4000',
  });
  const port = Number(process.env.PORT ?? 3000);
  const server = shop.app.listen(port, () =>
    console.log(`POST http://localhost:${port}/webhooks/stripe`),
  );
  // SMTP_URL: smtp://user:password@smtp.example.com:587 (nodemailer's connection URL).
  const mail = nodemailer.createTransport(process.env.SMTP_URL ?? 'smtp://127.0.0.1:2525');
  const dispatcher = createDispatcher(shop, {
    mail,
    onEvent: (event) => {
      if (event.type === 'dead') console.error(`dead: ${event.message.name} (${event.error})`);
    },
  });
  dispatcher.start();
  process.once('SIGTERM', async () => {
    server.close();
    await dispatcher.stop(); // waits for the sends in flight (their keys go out again next time)
    mail.close();
    shop.close();
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
