/** @module Serves the Stripe endpoint on PORT (default 3000); set DATABASE_URL and STRIPE_WEBHOOK_SECRET. */
import { createStripeApp } from './app';

const { DATABASE_URL: databaseUrl, STRIPE_WEBHOOK_SECRET: signingSecret } = process.env;
if (!databaseUrl || !signingSecret) {
  console.error('Set DATABASE_URL (postgresql://…) and STRIPE_WEBHOOK_SECRET (whsec_…)');
  process.exit(1);
}
const { app } = createStripeApp({ databaseUrl, signingSecret });
app.listen(Number(process.env.PORT ?? 3000));
