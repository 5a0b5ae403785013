/**
 * @module One handler server of the outbox storm, run as its own process (`fork` with
 * test-support/register): the real Express adapter over a transactional `SqlStore`, whose handler,
 * per event, writes a business row, calls the HTTP receiver directly under `effectKey('direct')` (a
 * call outside the transaction, repeated by every rerun under the same key), and records two outbox
 * messages in the run's transaction: an HTTP request and an email. Every `failEvery`-th event's
 * handler then throws, every time: its messages roll back with it. Told to, the process SIGKILLs
 * itself in its next handler after all of that, before the commit.
 * It registers no `uncaughtException` handler: a crash ends the process, and the parent counts it.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import { ErrorCode, IdempotencyError } from '@webhook-idempotency/core';
import { type EmailMessage, type HttpMessage, Outbox } from '@webhook-idempotency/core/outbox';
import { idempotencyErrors, idempotent } from '@webhook-idempotency/express';
import { DYING_MARKER, STORM_PROVIDER } from '../storm/config';
import {
  DIRECT_EFFECT,
  DIRECT_PATH,
  DOOMED_REFUSAL,
  EMAIL_EFFECT,
  EVENT_HEADER,
  emailSubject,
  failsForGood,
  HTTP_EFFECT,
  OUTBOX_PATH,
  type OutboxHandlerConfig,
} from './config';
import { connectStores } from './connect';

/** A write to the database failed (the server killed under the run): the app answers 503, the provider retries. */
class StoreWriteError extends Error {
  constructor(what: string, cause: unknown) {
    super(`${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreWriteError';
  }
}

/** The event is one that fails for good: thrown after its messages were recorded. */
class FailsForGood extends Error {
  constructor(id: string) {
    super(`event ${id} fails for good (after recording its outbox messages)`);
    this.name = 'FailsForGood';
  }
}

/** The library's refusals of what the handler asked (a bug of ours here): never retried as a store failure. */
const REFUSALS: ReadonlySet<string> = new Set([
  ErrorCode.OUTBOX_MESSAGE_INVALID,
  ErrorCode.OUTBOX_TRANSACTION_MISSING,
  ErrorCode.EFFECT_NAME_INVALID,
]);

/** `write`, its failure made a {@link StoreWriteError} unless the library refused what was asked. */
async function storeWrite<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof IdempotencyError && REFUSALS.has(error.code)) throw error;
    throw new StoreWriteError(what, error);
  }
}

function main(): void {
  const config = JSON.parse(process.argv[2]!) as OutboxHandlerConfig;
  const { store, outbox: outboxStore, insert } = connectStores(config, 'outbox handler');
  const outbox = new Outbox({ store: outboxStore });
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
      transactional: true,
      staleAfterSeconds: config.staleAfterSeconds,
    }),
    async (req: Request, res: Response) => {
      const id = req.get('x-delivery-id')!;
      const run = req.idempotency!;
      const token = randomUUID();
      await storeWrite('business write', () => insert(run.transaction, id, token));
      // Part 1: an outbound call made inside the run, outside its transaction. A rerun (after a
      // kill, a rollback, a failure) calls again, with the same key.
      const direct = await fetch(`${config.receiverUrl}${DIRECT_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': run.effectKey(DIRECT_EFFECT),
          [EVENT_HEADER]: id,
        },
        body: JSON.stringify({ event: id, effect: DIRECT_EFFECT }),
        signal: AbortSignal.timeout(5_000),
      });
      await direct.arrayBuffer();
      if (!direct.ok) throw new Error(`the direct call was answered ${direct.status}`);
      // Part 2: recorded in the run's transaction, sent after its commit by a dispatcher.
      const request: HttpMessage = {
        url: `${config.receiverUrl}${OUTBOX_PATH}`,
        headers: { [EVENT_HEADER]: id },
        json: { event: id, effect: HTTP_EFFECT },
      };
      await storeWrite('outbox http message', () =>
        outbox.add(run, { name: HTTP_EFFECT, sender: 'http', payload: request }),
      );
      const mail: EmailMessage = {
        from: 'shop@outbox-storm.test',
        to: 'customer@outbox-storm.test',
        subject: emailSubject(id),
        text: `Your payment for ${id} was received.`,
      };
      await storeWrite('outbox email', () =>
        outbox.add(run, { name: EMAIL_EFFECT, sender: 'email', payload: mail }),
      );
      if (failsForGood(id, config.failEvery)) throw new FailsForGood(id);
      if (config.handlerDelayMs > 0)
        await new Promise((resolve) => setTimeout(resolve, config.handlerDelayMs));
      if (dieInNextHandler) {
        // After the direct call and the recorded messages, before the commit.
        writeSync(1, `${DYING_MARKER} ${id}\n`);
        process.kill(process.pid, 'SIGKILL');
      }
      res.json({ id, token, pid: process.pid });
    },
  );
  app.use(idempotencyErrors());
  const onError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof StoreWriteError)
      return void res
        .status(503)
        .set('retry-after', '1')
        .json({ code: 'APP_BUSINESS_WRITE_FAILED', message });
    if (error instanceof FailsForGood)
      return void res.status(DOOMED_REFUSAL.status).json({ code: DOOMED_REFUSAL.code, message });
    res.status(500).json({ code: 'APP_UNEXPECTED_ERROR', message });
  };
  app.use(onError);

  const server = app.listen(config.port, '127.0.0.1', () =>
    process.send?.({ type: 'ready', pid: process.pid }),
  );
  server.keepAliveTimeout = 30_000;
  server.on('error', (error) => {
    process.stderr.write(`[outbox handler ${process.pid}] listen failed: ${error.message}\n`);
    process.exit(3);
  });
  // The parent is gone: do not outlive it.
  process.on('disconnect', () => process.exit(0));
}

main();
