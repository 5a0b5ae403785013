/**
 * With `fromPostgres` (postgres-js 3.4.9), ending backends under traffic killed the app: a
 * `TypeError` thrown from postgres-js's `nextWrite`, in a timer, outside any promise. The store's
 * own transactions sent it there: when a statement of theirs failed because the connection closed,
 * `sql.begin` wrote its ROLLBACK to the closed socket. The store now leaves such a transaction
 * unsettled (nothing more is written to that connection) and answers 503.
 *
 * What the store cannot contain, postgres-js throws from code no promise of ours reaches: an
 * application's own `sql.begin` whose statement the close failed (the same `nextWrite`), and a
 * new connection ended or reset while it fetches its array types (a discarded promise: an
 * unhandled rejection, `terminating connection` or the `read ECONNRESET` once seen under connection
 * kills). docs/stores.md says so and gives docs/patches/postgres@3.4.9.patch; the tests below
 * pin both sides: the installed driver ends the app in those two cases, the patched one (applied
 * to a copy of the package, as `pnpm patch` does to an app's) does not, and a storm of repeated
 * `pg_terminate_backend` under traffic on the patched driver ends with every answer 200 or 503, the
 * app up, and one booked row per event after redelivery.
 *
 * The app runs in a child process (test/helpers/postgres-js-app.ts) without listeners of its own,
 * so an uncaught exception or an unhandled rejection ends it, visibly, as it would a user's app.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { Schema } from '../../src';
import { pgDatabase } from '../helpers/databases';
import type { PostgresJsAppTask } from '../helpers/postgres-js-app';

const APP = join(__dirname, '..', 'helpers', 'postgres-js-app.ts');
const PATCH = join(__dirname, '..', '..', '..', '..', 'docs', 'patches', 'postgres@3.4.9.patch');
/** The installed postgres-js (the workspace pins 3.4.9). */
const STOCK = join(dirname(require.resolve('postgres')), '..', '..');
const DATABASE = 'wi_postgres_js_storm';

let url = '';
let patched = '';

/** Ends every backend of the test database but the admin's own, and waits until they are gone. */
async function terminateAll(): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      'SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [DATABASE],
    );
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

async function clearEffects(): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('TRUNCATE effects, webhook_receipts');
  await admin.end();
}

/**
 * A TCP proxy in front of PostgreSQL that, once armed with a statement's text, holds the client's
 * bytes carrying it and ends every backend of the database instead (from the app's side, the
 * statement is in flight when its backend is terminated: the server's FATAL message, then the
 * close), or resets the app's connection (a TCP RST: `read ECONNRESET`, no message).
 */
class TerminatingProxy {
  private server: Server | undefined;
  private armed: { text: string; hit: () => void; reset: boolean } | undefined;
  port = 0;

  async start(target: URL): Promise<void> {
    this.server = createServer((client) => this.pipe(client, target));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Resolves once the next statement containing `text` met a terminated backend. */
  terminateAt(text: string): Promise<void> {
    return new Promise((resolve) => {
      this.armed = { text, hit: resolve, reset: false };
    });
  }

  /** Resolves once the connection that sent the next statement containing `text` was reset. */
  resetAt(text: string): Promise<void> {
    return new Promise((resolve) => {
      this.armed = { text, hit: resolve, reset: true };
    });
  }

  private pipe(client: Socket, target: URL): void {
    const server = connect(Number(target.port), target.hostname);
    const end = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
    server.on('data', (data) => client.write(data));
    client.on('data', (data) => {
      const armed = this.armed;
      if (!armed || !data.includes(armed.text)) return void server.write(data);
      this.armed = undefined;
      client.pause();
      if (!armed.reset) return void terminateAll().then(armed.hit, armed.hit);
      client.resetAndDestroy();
      server.destroy();
      armed.hit();
    });
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** The app in its child process; `exit` settles when it ends, with what it printed to stderr. */
interface App {
  readonly port: number;
  readonly exit: Promise<{ code: number | null; stderr: string }>;
  readonly process: ChildProcess;
  post(path: string): Promise<{ status: number; body: Record<string, unknown> }>;
  effects(): Promise<Record<string, number>>;
  stop(): Promise<{ code: number | null; stderr: string }>;
}

async function startApp(task: PostgresJsAppTask): Promise<App> {
  const child = fork(APP, [JSON.stringify(task)], {
    execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stderr })),
  );
  const port = await Promise.race([
    new Promise<number>((resolve) =>
      child.once('message', (message: { port: number }) => resolve(message.port)),
    ),
    exit.then(({ stderr: text }) => Promise.reject(new Error(`the app did not start: ${text}`))),
  ]);
  const request = async (method: string, path: string) => {
    let response: Response;
    try {
      response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
    } catch (error) {
      if (child.exitCode === null && child.signalCode === null) throw error;
      const ended = await exit;
      throw new Error(`the app ended (exit code ${ended.code}): ${ended.stderr}`, { cause: error });
    }
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    port,
    exit,
    process: child,
    post: (path) => request('POST', path),
    effects: async () => (await request('GET', '/effects')).body as Record<string, number>,
    async stop() {
      // (An app that ended meanwhile cannot be told; its exit is the answer.)
      if (child.connected) child.send({ type: 'stop' }, () => undefined);
      return exit;
    },
  };
}

/**
 * How the app ended after `request` (answered or not): postgres-js throws from a timer once the
 * request's own promises settled, so a later request finds the app gone, or alive (`undefined`).
 */
async function endedAfter(app: App, request: Promise<unknown>) {
  await request.catch(() => undefined);
  const alive = await app.effects().then(
    () => true,
    () => false,
  );
  return alive ? undefined : app.exit;
}

/** `request`'s answer, or how the app ended when it ended first. */
async function answerOrExit(app: App, request: Promise<{ status: number }>) {
  return Promise.race([
    request.then(({ status }) => ({ status })),
    app.exit.then(({ code, stderr }) => ({ exited: code, stderr })),
  ]);
}

beforeAll(async () => {
  url = await pgDatabase(DATABASE);
  const admin = new pg.Pool({ connectionString: url });
  await Schema.createTable(admin);
  await admin.query('CREATE TABLE effects (id TEXT PRIMARY KEY)');
  await admin.end();
  // The patch as docs/stores.md gives it, applied to a copy of the installed package.
  patched = join(mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'postgres-js-')), 'postgres');
  cpSync(STOCK, patched, { recursive: true, dereference: true });
  execFileSync('git', ['apply', PATCH], { cwd: patched });
});

describe('the installed postgres-js 3.4.9', () => {
  const proxy = new TerminatingProxy();
  beforeAll(() => proxy.start(new URL(url)));
  afterAll(() => proxy.stop());
  const through = () => {
    const via = new URL(url);
    via.port = String(proxy.port);
    return via.toString();
  };

  it.each(['postgres-js', 'drizzle'] as const)(
    '%s: a backend ended under the store’s transaction (its setup statement, the handler’s statement in flight): 503, the app stays up, the redelivery books once',
    async (tool) => {
      await clearEffects();
      const app = await startApp({ url: through(), driver: STOCK, tool });
      try {
        await app.effects(); // the pool's first connection, types fetched
        const setup = proxy.terminateAt('idle_in_transaction_session_timeout');
        const first = answerOrExit(app, app.post('/hook/at_setup'));
        await setup;
        expect(await first).toEqual({ status: 503 });
        const inFlight = proxy.terminateAt('pg_sleep');
        const second = answerOrExit(app, app.post('/hook/in_flight?sleep=2'));
        await inFlight;
        expect(await second).toEqual({ status: 503 });
        // Nothing of either committed; each redelivery runs the handler once.
        expect(await app.effects()).toEqual({});
        expect((await app.post('/hook/at_setup')).status).toBe(200);
        expect((await app.post('/hook/in_flight')).status).toBe(200);
        expect(await app.effects()).toEqual({ at_setup: 1, in_flight: 1 });
      } finally {
        expect(await app.stop()).toEqual({ code: 0, stderr: '' });
      }
    },
  );

  it('outside the store it ends the app, as docs/stores.md warns: an app’s own sql.begin whose statement the close failed (TypeError from nextWrite)', async () => {
    const app = await startApp({ url: through(), driver: STOCK, tool: 'postgres-js' });
    await app.effects();
    const inFlight = proxy.terminateAt('pg_sleep');
    const answer = app.post('/own/own_begin?sleep=2');
    await inFlight;
    const ended = await endedAfter(app, answer);
    expect(ended?.code).toBe(1);
    expect(ended?.stderr).toMatch(
      /TypeError: Cannot read properties of null \(reading 'write'\)[\s\S]*nextWrite/,
    );
  });

  it('outside the store it ends the app, as docs/stores.md warns: a backend ended while a new connection fetches its array types (unhandled rejection)', async () => {
    const app = await startApp({ url: through(), driver: STOCK, tool: 'postgres-js' });
    const typeFetch = proxy.terminateAt('typarray');
    const answer = app.post('/hook/type_fetch');
    await typeFetch;
    const ended = await endedAfter(app, answer);
    expect(ended?.code).toBe(1);
    expect(ended?.stderr).toMatch(/PostgresError: terminating connection[\s\S]*Node\.js/);
  });

  it('outside the store it ends the app: a new connection reset while it fetches its array types (the unhandled ECONNRESET)', async () => {
    const app = await startApp({ url: through(), driver: STOCK, tool: 'postgres-js' });
    const typeFetch = proxy.resetAt('typarray');
    const answer = app.post('/hook/type_fetch_reset');
    await typeFetch;
    const ended = await endedAfter(app, answer);
    expect(ended?.code).toBe(1);
    expect(ended?.stderr).toMatch(/Error: read ECONNRESET[\s\S]*Node\.js/);
  });
});

describe('postgres-js 3.4.9 with docs/patches/postgres@3.4.9.patch', () => {
  const proxy = new TerminatingProxy();
  beforeAll(() => proxy.start(new URL(url)));
  afterAll(() => proxy.stop());

  it('the cases the store cannot contain leave the app up', async () => {
    const via = new URL(url);
    via.port = String(proxy.port);
    const app = await startApp({ url: via.toString(), driver: patched, tool: 'postgres-js' });
    try {
      const typeFetch = proxy.terminateAt('typarray');
      const fetching = answerOrExit(app, app.post('/hook/patched_type_fetch'));
      await typeFetch;
      expect(await fetching).toEqual({ status: 503 });
      const inFlight = proxy.terminateAt('pg_sleep');
      const own = answerOrExit(app, app.post('/own/patched_own_begin?sleep=2'));
      await inFlight;
      expect(await own).toEqual({ status: 500 }); // the app's own error answer: its transaction failed
    } finally {
      expect(await app.stop()).toEqual({ code: 0, stderr: '' });
    }
    const fresh = await startApp({ url: via.toString(), driver: patched, tool: 'postgres-js' });
    try {
      const reset = proxy.resetAt('typarray');
      const answered = answerOrExit(fresh, fresh.post('/hook/patched_type_fetch_reset'));
      await reset;
      expect(await answered).toEqual({ status: 503 });
    } finally {
      expect(await fresh.stop()).toEqual({ code: 0, stderr: '' });
    }
  });

  it('a storm of pg_terminate_backend under traffic: the app stays up, every answer is 200 or 503, and the redeliveries book each event once', async () => {
    const app = await startApp({ url, driver: patched, tool: 'postgres-js' });
    const statuses: number[] = [];
    const ids: string[] = [];
    let terminated = 0;
    try {
      for (let round = 0; round < 8; round++) {
        const batch = Array.from({ length: 6 }, (_, lane) => {
          const id = `storm_${round}_${lane}`;
          ids.push(id);
          return app.post(`/hook/${id}?sleep=${lane % 2 === 0 ? 0.2 : 0}`);
        });
        await new Promise((resolve) => setTimeout(resolve, 20 + ((round * 37) % 80)));
        terminated += await terminateAll();
        for (const { status } of await Promise.all(batch)) statuses.push(status);
      }
      expect(terminated).toBeGreaterThan(0);
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      expect(statuses).toContain(503);
      // Redeliver until every event is booked: a receipt whose failure could not be written
      // waits out its claim (staleAfterSeconds 5) as 409.
      for (const id of ids) {
        let status = 0;
        for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
          status = (await app.post(`/hook/${id}`)).status;
        }
        expect([id, status]).toEqual([id, 200]);
      }
      const effects = await app.effects();
      expect(ids.filter((id) => effects[id] !== 1)).toEqual([]);
    } finally {
      expect(await app.stop()).toEqual({ code: 0, stderr: '' });
    }
  });
});
