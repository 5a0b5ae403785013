/**
 * @module The docs' server files (tests/runtimes/apps) run as a user runs them: the runtime's
 * command in the project, on a free port, then a forged delivery, a signed one and its redelivery
 * over HTTP, signed by each provider's documented scheme.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@webhook-idempotency/test-support/databases';
import { repoRoot } from '@webhook-idempotency/test-support/node-lines';
import { allAnswered, sendOversized } from '@webhook-idempotency/test-support/oversized';
import type { Runtime } from '@webhook-idempotency/test-support/runtimes';

/** A request to POST: its body and headers. */
export interface Delivery {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const hmac = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');

/** A Stripe event signed as Stripe signs it (`Stripe-Signature: t=…,v1=` HMAC-SHA256 of `t.body`), now. */
export function stripeDelivery(secret: string, paymentIntent: string): Delivery {
  const body = JSON.stringify({
    id: `evt_${paymentIntent}`,
    type: 'payment_intent.succeeded',
    data: { object: { id: paymentIntent, amount: 2000 } },
  });
  const t = Math.floor(Date.now() / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': `t=${t},v1=${hmac(secret, `${t}.${body}`)}`,
    },
  };
}

/** A GitHub push signed as GitHub signs it (`X-Hub-Signature-256: sha256=` HMAC-SHA256 of the body). */
export function githubDelivery(secret: string, deliveryId: string): Delivery {
  const body = JSON.stringify({ ref: 'refs/heads/main', commits: [{ id: 'c0ffee' }] });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${hmac(secret, body)}`,
    },
  };
}

/** A server the test started, and how to stop it. */
export interface StartedServer {
  readonly port: number;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** How long a server file may take to start listening (it creates its tables first). */
const LISTEN_WITHIN_MS = 30_000;

/**
 * Runs `runtime` with `args` in `cwd`, with `PORT` set to a free port and `env` added; resolves
 * once the port accepts connections.
 * @throws {Error} with what it printed when it exits first or does not listen in time.
 */
export async function startServer(
  runtime: Runtime,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<StartedServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(runtime.bin, args, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await exit;
  };
  const deadline = Date.now() + LISTEN_WITHIN_MS;
  while (!(await canConnect(port))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(
        `${runtime.name} ${args.join(' ')} ${exited ? 'exited' : 'did not listen'} before serving:\n${printed}`,
      );
    }
    await sleep(50);
  }
  return { port, output: () => printed, stop };
}

/** What a POST got back. */
export interface Answer {
  readonly status: number;
  readonly replayed: string | null;
  readonly body: string;
}

/** POSTs `delivery` to `path` on the server. */
export async function post(
  server: StartedServer,
  path: string,
  delivery: Delivery,
): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
  });
  return {
    status: res.status,
    replayed: res.headers.get('idempotent-replayed'),
    body: await res.text(),
  };
}

/**
 * The docs' promise, checked on a running server: a forged copy is refused (401), the signed
 * delivery is handled (200), its redelivery is answered from the receipt with the same body.
 */
export async function expectHandledOnce(
  server: StartedServer,
  path: string,
  delivery: Delivery,
  forged: Delivery,
): Promise<void> {
  expect(await post(server, path, forged)).toMatchObject({ status: 401 });
  const first = await post(server, path, delivery);
  expect(first).toEqual({ status: 200, replayed: null, body: '{"received":true}' });
  expect(await post(server, path, delivery)).toEqual({ ...first, replayed: 'true' });
}

/** Rounds of {@link expectOversizedRefused}: each sends one request of every kind of sender. */
export const OVERSIZED_ROUNDS = 10;

/**
 * The docs' body limit, checked on a running server: a 2 MiB delivery, over the default 1 MiB
 * `maxRequestBytes`, is answered 413, and every kind of sender (its length announced or chunked,
 * on a connection of its own or one kept alive) reads that answer, {@link OVERSIZED_ROUNDS} times
 * each.
 */
export async function expectOversizedRefused(
  server: StartedServer,
  path: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  const outcomes = await sendOversized({
    url: `http://127.0.0.1:${server.port}`,
    path,
    bytes: 2 * 1024 * 1024,
    rounds: OVERSIZED_ROUNDS,
    headers,
  });
  expect(outcomes).toEqual(allAnswered(outcomes, 413));
}

/** The drivers of the sql package's tests, to read what a server wrote. */
const fromSqlPackage = createRequire(join(repoRoot, 'packages', 'sql', 'package.json'));

/** The rows of `table` in a SQLite file a server wrote (read with better-sqlite3 once it stopped). */
export function sqliteRows(file: string, table: string): number {
  const Database = fromSqlPackage('better-sqlite3') as new (
    file: string,
  ) => { prepare(sql: string): { get(): { n: number } }; close(): void };
  const db = new Database(file);
  try {
    return db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get().n;
  } finally {
    db.close();
  }
}

/** The rows of `table` in the PostgreSQL database at `url`. */
export async function pgRows(url: string, table: string): Promise<number> {
  const pg = fromSqlPackage('pg') as {
    Client: new (options: {
      connectionString: string;
    }) => {
      connect(): Promise<void>;
      query(sql: string): Promise<{ rows: Array<{ n: string }> }>;
      end(): Promise<void>;
    };
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]!.n);
  } finally {
    await client.end();
  }
}
