/** @module Serves the Payme endpoint on PORT (default 3000); set DATABASE_URL and PAYME_KEY. */
import { createPaymeApp } from './app';

async function main(): Promise<void> {
  const { DATABASE_URL: databaseUrl, PAYME_KEY: paymeKey } = process.env;
  if (!databaseUrl || !paymeKey)
    throw new Error('Set DATABASE_URL (mysql://…) and PAYME_KEY (the cash-desk key)');
  const { app } = await createPaymeApp({ databaseUrl, paymeKey });
  app.listen(Number(process.env.PORT ?? 3000));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
