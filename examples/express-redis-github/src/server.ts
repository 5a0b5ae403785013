/** @module Serves the GitHub webhook on PORT (default 3000); set GITHUB_WEBHOOK_SECRET and REDIS_URL. */
import Redis from 'ioredis';
import { createGitHubApp } from './app';

const secret = process.env.GITHUB_WEBHOOK_SECRET;
if (!secret) throw new Error('Set GITHUB_WEBHOOK_SECRET (the secret of the repository webhook)');
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
redis.on('error', (error) => console.error('redis:', error.message));
createGitHubApp({ redis, secret }).app.listen(Number(process.env.PORT ?? 3000));
