/**
 * @module One app server of the DynamoDB storm, run as its own process (`fork` with
 * test-support/register): the real Express adapter over a `DynamoDBStore` on a `DynamoDBClient` or
 * a `DynamoDBDocumentClient`, set up as docs/stores.md tells users to, with a handler whose one
 * effect carries the run's attempt and a fresh random token, which it also answers. Without
 * transactions the effect is a row of a SQLite ledger (independent of the store); in transactional
 * mode it is an item written in the same `TransactWriteItems` as the receipt's completion.
 * It registers no `uncaughtException` handler: a crash must end the process, and the parent counts it.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireTransaction } from '@webhook-idempotency/core';
import { DynamoDBStore } from '@webhook-idempotency/dynamodb';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import Database from 'better-sqlite3';
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import { DYING_MARKER, type DynamoStormServerConfig, STORM_PROVIDER } from './config';

/** The store as docs/stores.md sets it up: a bounded client, the store's own bound on each call. */
function openStore(config: DynamoStormServerConfig): DynamoDBStore {
  const client = new DynamoDBClient({
    endpoint: config.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'storm', secretAccessKey: 'storm' },
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  });
  const given = config.connection === 'client' ? client : DynamoDBDocumentClient.from(client);
  return new DynamoDBStore(given, {
    table: config.table,
    requestTimeoutMs: config.requestTimeoutMs,
    transactions: config.effects.kind === 'table',
  });
}

/** Records the run's effect: a ledger row now, or an item that commits with the receipt. */
function effectWriter(config: DynamoStormServerConfig, store: DynamoDBStore) {
  const { effects, connection } = config;
  if (effects.kind === 'table')
    return (req: Request, id: string, attempts: number, token: string) =>
      void requireTransaction(req.idempotency, store).put({
        TableName: effects.table,
        Item: { id: `${id}#${attempts}#${token}`, event_id: id, attempts, token, pid: process.pid },
      });
  const ledger = new Database(effects.file, { timeout: 10_000 });
  const record = ledger.prepare(
    'INSERT INTO ledger (event_id, attempts, token, pid, via) VALUES (?, ?, ?, ?, ?)',
  );
  return (_req: Request, id: string, attempts: number, token: string) =>
    void record.run(id, attempts, token, process.pid, connection);
}

function main(): void {
  const config = JSON.parse(process.argv[2]!) as DynamoStormServerConfig;
  const store = openStore(config);
  const effect = effectWriter(config, store);
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
      transactional: config.effects.kind === 'table',
      maxResponseBytes: 64 * 1024,
    }),
    async (req: Request, res: Response) => {
      const id = req.get('x-delivery-id')!;
      const token = randomUUID();
      const { attempts } = req.idempotency!;
      effect(req, id, attempts, token);
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

main();
