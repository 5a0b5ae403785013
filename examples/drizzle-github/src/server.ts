/** @module Serves the GitHub webhook on PORT (default 3000); set GITHUB_WEBHOOK_SECRET. */
import { createGitHubApp } from './app';

async function main(): Promise<void> {
  const secret = process.env.GITHUB_WEBHOOK_SECRET;
  if (!secret) throw new Error('Set GITHUB_WEBHOOK_SECRET (the secret of the repository webhook)');
  const { app } = await createGitHubApp({
    file: process.env.DATABASE_FILE ?? 'github.sqlite',
    secret,
  });
  app.listen(Number(process.env.PORT ?? 3000));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
