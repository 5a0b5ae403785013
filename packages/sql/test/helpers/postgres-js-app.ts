/**
 * An app process of the postgres-js connection tests, run through test-support/register: a
 * node:http server whose route books one business row per event through a transactional guard over
 * `fromPostgres(sql)` (or `fromDrizzle` over the same `sql`), answering each guard error with its
 * HTTP status, as the adapters do. The
 * postgres-js it loads is the package folder it is given (the installed one, or a copy with the
 * patch docs/stores.md gives), and it installs no `uncaughtException` or `unhandledRejection`
 * listener: what postgres-js throws outside a promise ends it, as it ends an app of a user.
 *
 * - `POST /hook/<id>?sleep=<s>`: the event, its handler holding a `pg_sleep` in flight when asked.
 * - `POST /own/<id>?sleep=<s>`: the app's own `sql.begin` with the same statements, no guard.
 * - `GET /effects`: how many rows each event booked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql as statement } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import { IdempotencyGuard, isIdempotencyError, RequestKey } from '@webhook-idempotency/core';
import { SqlStore } from '../../src';
import { fromDrizzle } from '../../src/drizzle';
import { fromPostgres } from '../../src/postgres-js';

/** What the parent passes as the only argument (JSON). */
export interface PostgresJsAppTask {
  /** The database URL (directly, or through the parent's proxy). */
  readonly url: string;
  /** The folder of the postgres-js package to load. */
  readonly driver: string;
  /** The store's connection: postgres-js itself, or Drizzle over it. */
  readonly tool: 'postgres-js' | 'drizzle';
}

const task = JSON.parse(process.argv[2]!) as PostgresJsAppTask;
const connect = require(task.driver) as typeof postgres;
const sql = connect(task.url, { max: 4, onnotice: () => undefined });
const connection = task.tool === 'drizzle' ? fromDrizzle(drizzle(sql)) : fromPostgres(sql);
const guard = new IdempotencyGuard(new SqlStore(connection, { acquireTimeoutMs: 2000 }), {
  transactional: true,
  staleAfterSeconds: 5,
});

/** Runs one statement on a transaction handle of either tool. */
type Run = (text: TemplateStringsArray, ...values: unknown[]) => Promise<unknown>;
const runOn = (tx: unknown): Run =>
  task.tool === 'drizzle'
    ? (text, ...values) => (tx as ReturnType<typeof drizzle>).execute(statement(text, ...values))
    : (text, ...values) => (tx as postgres.TransactionSql)(text, ...(values as never[]));

/** The handler's statements: the business row, then a statement in flight while the connection may die. */
async function book(run: Run, id: string, sleep: number): Promise<{ booked: string }> {
  await run`INSERT INTO effects (id) VALUES (${id})`;
  if (sleep > 0) await run`SELECT pg_sleep(${sleep})`;
  return { booked: id };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://app');
  const [, kind, id = ''] = url.pathname.split('/');
  const sleep = Number(url.searchParams.get('sleep') ?? 0);
  if (kind === 'effects') {
    const rows = await sql`SELECT id, count(*)::int AS n FROM effects GROUP BY id`;
    return answer(res, 200, Object.fromEntries(rows.map((row) => [row.id, row.n])));
  }
  try {
    const result =
      kind === 'own'
        ? await sql.begin((tx) => book(runOn(tx), id, sleep))
        : (
            await guard.run(new RequestKey('p', id), ({ transaction }) =>
              book(runOn(transaction), id, sleep),
            )
          ).response;
    answer(res, 200, result);
  } catch (error) {
    const status = isIdempotencyError(error) ? error.httpStatus : 500;
    answer(res, status, { code: (error as { code?: unknown }).code ?? null });
  }
}

const server = createServer((req, res) => {
  route(req, res).catch((error: unknown) => answer(res, 500, { code: String(error) }));
});
server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
});
process.on('message', (message: { type: string }) => {
  if (message.type !== 'stop') return;
  server.close();
  sql.end({ timeout: 1 }).then(() => process.exit(0));
});
