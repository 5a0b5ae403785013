/**
 * @module The inbox section's benchmark server, run in its own process (pinned to core 0 by the
 * runner): one Express webhook route on a database the runner prepared, either the inbox endpoint
 * (store the delivery, answer 2xx) or the synchronous guard whose handler books the event in the
 * receipt's transaction. It reports its own CPU time over IPC, and on `drain` runs
 * `createInboxWorker` in this same process over the deliveries the endpoint stored.
 *
 * `node inbox-server.js <mode> <database>`; mode `inbox`, `guard` or `guard-slow` (the same
 * handler after 50 ms of awaited latency, inside the transaction); database `sqlite:<file>`, a
 * `postgres://` or a `mysql://` URL. `pg` and `mysql2` pools of 10 (pg's default).
 * `node inbox-server.js ddl` prints the tables of the packages it was bundled with (JSON, a
 * {@link Ddl}), so that the runner gives each build (the baseline's too) its own schema.
 */
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInboxWorker } from '@webhook-idempotency/core/inbox';
import {
  type ExpressInboxOptions,
  idempotent,
  inbox,
  saveRawBody,
} from '@webhook-idempotency/express';
import { InboxSchema, Schema, SqlInbox, SqlStore } from '@webhook-idempotency/sql';
import express from 'express';
import { ANSWER, bookingHandler, openBenchDatabase } from './booking';
import { type Ddl, type DrainReport, type InboxServerMode, SLOW_HANDLER_MS } from './inbox-paths';

const keyOf = (req: express.Request) => req.get('x-event-id');

/**
 * The inbox endpoint without a signature check: the benchmark measures storing. A build from
 * before the `unverified` option refuses it as unknown (a ConfigError naming it), and checks
 * nothing without it.
 */
function unverifiedInbox(options: ExpressInboxOptions): express.RequestHandler {
  try {
    return inbox({ ...options, unverified: true });
  } catch (error) {
    if ((error as { option?: unknown }).option !== 'unverified') throw error;
    return inbox(options);
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'ddl') {
    const of = (dialect: keyof Ddl) => [
      ...InboxSchema.statements(dialect),
      ...Schema.statements(dialect),
    ];
    const ddl: Ddl = { postgres: of('postgres'), mysql: of('mysql'), sqlite: of('sqlite') };
    process.stdout.write(JSON.stringify(ddl));
    return;
  }
  const mode = process.argv[2] as InboxServerMode;
  const { db, book, close } = openBenchDatabase(process.argv[3]!);
  const deliveries = new SqlInbox(db);
  let stored = 0;
  const app = express();
  if (mode === 'inbox')
    app.post(
      '/hook',
      express.raw({ type: 'application/json' }),
      unverifiedInbox({
        inbox: deliveries,
        provider: 'bench',
        key: keyOf,
        onEvent: (event) => {
          if (event.type === 'stored') stored++;
        },
      }),
    );
  else
    app.post(
      '/hook',
      express.json({ verify: saveRawBody }),
      idempotent({ store: new SqlStore(db), provider: 'bench', key: keyOf, transactional: true }),
      async (req, res, next) => {
        try {
          if (mode === 'guard-slow') await sleep(SLOW_HANDLER_MS);
          const event = req.body as { type: string };
          if (event.type === 'payment.succeeded')
            await book(req.idempotency!.transaction, keyOf(req)!);
          res.json(ANSWER);
        } catch (error) {
          next(error);
        }
      },
    );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));

  /** Runs the worker until every stored delivery is processed, or `maxSeconds` passed. */
  const drain = async (maxSeconds: number): Promise<DrainReport> => {
    let processed = 0;
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const worker = createInboxWorker({
      inbox: deliveries,
      store: new SqlStore(db),
      handlers: { bench: bookingHandler(book) },
      onEvent: (event) => {
        if (event.type === 'processed' && ++processed >= stored) finish();
        if (event.type === 'store-error' || event.type === 'retry' || event.type === 'dead')
          console.error('inbox worker:', event);
      },
    });
    const deadline = setTimeout(finish, maxSeconds * 1000);
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    worker.start();
    await done;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    clearTimeout(deadline);
    const deliveriesDone = processed;
    await worker.stop();
    return {
      deliveries: deliveriesDone,
      seconds,
      cpuUs: cpu.user + cpu.system,
      emptied: deliveriesDone >= stored,
    };
  };

  process.send!({ port: (server.address() as AddressInfo).port });
  process.on('message', (message: string | { drain: number }) => {
    if (message === 'cpu')
      process.send!({ cpu: { ...process.cpuUsage(), rss: process.memoryUsage().rss } });
    if (typeof message === 'object' && 'drain' in message)
      void drain(message.drain).then((report) => process.send!({ drain: report }));
    if (message === 'stop') {
      server.close();
      void Promise.resolve(close()).finally(() => process.exit(0));
    }
  });
}

void main();
