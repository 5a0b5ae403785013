/**
 * @module One app server of the Redis storm, run as its own process (`fork` with
 * test-support/register): the real Express adapter over a `RedisStore` (not transactional: the
 * store has no transactions) on ioredis or node-redis, set up as docs/stores.md tells users to,
 * with a handler whose one effect is a row in the effect ledger (a SQLite file, independent of
 * Redis) carrying the run's attempt and a fresh random token, which it also answers.
 * It registers no `uncaughtException` handler: a crash must end the process, and the parent counts it.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import { RedisStore, type RedisClient } from '@webhook-idempotency/redis';
import { DYING_MARKER, type RedisStormServerConfig, STORM_PROVIDER } from './config';

const log = (message: string) =>
  process.stderr.write(`[storm server ${process.pid}] redis client error: ${message}\n`);

/** The client as docs/stores.md sets it up: an `error` listener, reconnecting on its own. */
async function openClient(config: RedisStormServerConfig): Promise<RedisClient> {
  if (config.connection === 'ioredis') {
    const client = new Redis(config.redisUrl);
    client.on('error', (error: Error) => log(error.message));
    return client;
  }
  const client = createClient({ url: config.redisUrl });
  client.on('error', (error: Error) => log(error.message));
  await client.connect();
  return client;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]!) as RedisStormServerConfig;
  const store = new RedisStore(await openClient(config), {
    prefix: config.prefix,
    commandTimeoutMs: config.commandTimeoutMs,
  });
  const ledger = new Database(config.ledger, { timeout: 10_000 });
  const record = ledger.prepare(
    'INSERT INTO ledger (event_id, attempts, token, pid, via) VALUES (?, ?, ?, ?, ?)',
  );
  // The parent's "die in the next handler": SIGKILL this process right after the effect, before
  // the guard records the result. The one sure way to kill a server between claim and completion.
  let dieInNextHandler = false;
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'die-in-handler') dieInNextHandler = true;
  });
  const app = express();
  app.post(
    '/webhook',
    express.raw({ type: '*/*' }),
    idempotent({
      store,
      provider: STORM_PROVIDER,
      key: (req) => req.get('x-delivery-id'),
      keyDescription: 'X-Delivery-Id header',
      staleAfterSeconds: config.staleAfterSeconds,
    }),
    async (req: Request, res: Response) => {
      const id = req.get('x-delivery-id')!;
      const token = randomUUID();
      const { attempts } = req.idempotency!;
      record.run(id, attempts, token, process.pid, config.connection);
      if (config.handlerDelayMs > 0)
        await new Promise((resolve) => setTimeout(resolve, config.handlerDelayMs));
      if (dieInNextHandler) {
        writeSync(1, `${DYING_MARKER} ${id}\n`);
        process.kill(process.pid, 'SIGKILL');
      }
      res.json({ id, token, pid: process.pid, via: config.connection, attempts });
    },
  );
  app.use(idempotencyErrors());
  const onError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    res.status(500).json({
      code: 'APP_UNEXPECTED_ERROR',
      message: error instanceof Error ? error.message : String(error),
    });
  };
  app.use(onError);
  const server = app.listen(config.port, '127.0.0.1', () =>
    process.send?.({ type: 'ready', pid: process.pid }),
  );
  server.keepAliveTimeout = 30_000;
  server.on('error', (error) => {
    process.stderr.write(`[storm server ${process.pid}] listen failed: ${error.message}\n`);
    process.exit(3);
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`[storm server ${process.pid}] could not start: ${String(error)}\n`);
  process.exit(4);
});
