/** @module Serves the bot webhook on PORT (default 3000); set BOT_ID and TELEGRAM_SECRET_TOKEN. */
import { createBotApp } from './app';

async function main(): Promise<void> {
  const botId = Number(process.env.BOT_ID);
  const secretToken = process.env.TELEGRAM_SECRET_TOKEN;
  if (!botId || !secretToken)
    throw new Error('Set BOT_ID (digits before the colon of the token) and TELEGRAM_SECRET_TOKEN');
  const { app } = await createBotApp({
    file: process.env.DATABASE_FILE ?? 'bot.sqlite',
    botId,
    secretToken,
  });
  app.listen(Number(process.env.PORT ?? 3000));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
