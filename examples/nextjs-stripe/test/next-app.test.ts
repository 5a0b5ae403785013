/**
 * The example as a Next.js user runs it: the app copied into an empty folder outside the workspace,
 * our packages installed from their packed tarballs with pnpm (Next.js 16 and React at the
 * versions of package.json), then `next build` and `next start` on a free port, and Stripe's
 * deliveries sent over HTTP. The workspace's own links cannot be built by Next: they point at
 * TypeScript sources, which only our jest and tsc read.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { allAnswered, sendOversized } from '@webhook-idempotency/test-support/oversized';
import Database from 'better-sqlite3';
import * as signers from '@webhook-idempotency/providers/testing';
import { migrate } from '../src/lib/db';

const run = promisify(execFile);
const example = join(__dirname, '..');
const repoRoot = join(example, '..', '..');
const secret = 'whsec_test_nextjs_built_app';
const stripe = signers.stripe({ secret, url: 'https://shop.example.com/api/webhooks/stripe' });

const work = mkdtempSync(join(tmpdir(), 'wi-nextjs-'));
const app = join(work, 'app');
const databaseFile = join(work, 'stripe-webhooks.sqlite');
let server: ChildProcess | undefined;
let origin = '';
let buildOutput = '';

interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** Runs a command; on failure, throws with everything it printed. */
async function command(file: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: app, env, maxBuffer: 64 << 20 });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

/** Packs the published packages the app depends on (`scripts/pack.mjs`, as `pnpm publish` would). */
async function pack(names: string[]): Promise<Map<string, string>> {
  const { stdout } = await run(
    process.execPath,
    [join(repoRoot, 'scripts', 'pack.mjs'), join(work, 'packs'), ...names],
    { cwd: repoRoot, maxBuffer: 16 << 20 },
  );
  const packed = JSON.parse(stdout) as { name: string; tarball: string }[];
  return new Map(packed.map((pkg) => [pkg.name, pkg.tarball]));
}

/**
 * The example's package.json with each workspace link replaced by its tarball (the test helpers'
 * links left out), and the folder's other files (sources, next.config.ts, tsconfig.json) as they are.
 */
async function copyApp(): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')) as Manifest;
  const ours = Object.keys(manifest.dependencies).filter((name) =>
    manifest.dependencies[name]!.startsWith('workspace:'),
  );
  const tarballs = await pack(ours);
  const dependencies = Object.fromEntries(
    Object.entries(manifest.dependencies).map(([name, range]) => [
      name,
      tarballs.has(name) ? `file:${tarballs.get(name)}` : range,
    ]),
  );
  mkdirSync(app);
  for (const file of ['src', 'next.config.ts', 'tsconfig.json'])
    cpSync(join(example, file), join(app, file), { recursive: true });
  // The workspace's test helpers (the tests' own, never the app's) stay out of the app.
  const devDependencies = Object.fromEntries(
    Object.entries(manifest.devDependencies).filter(([, range]) => !range.startsWith('workspace:')),
  );
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ ...manifest, dependencies, devDependencies }, null, 2),
  );
  // better-sqlite3's install script would compile it (no prebuilt binary is reachable here): the
  // binary built for this Node is put in place below, as prebuild-install would download it.
  writeFileSync(join(app, 'pnpm-workspace.yaml'), 'allowBuilds:\n  better-sqlite3: false\n');
}

/** The binary of the workspace's better-sqlite3 (built for this Node), into the app's copy. */
function placeBetterSqlite3Binary(): void {
  const built = dirname(require.resolve('better-sqlite3/package.json'));
  const installed = realpathSync(join(app, 'node_modules', 'better-sqlite3'));
  const binary = join('build', 'Release', 'better_sqlite3.node');
  mkdirSync(dirname(join(installed, binary)), { recursive: true });
  cpSync(join(built, binary), join(installed, binary));
}

/** `next start` on a port of the system's choosing; resolves with its origin once it is ready. */
function start(env: NodeJS.ProcessEnv): Promise<string> {
  const next = join(app, 'node_modules', 'next', 'dist', 'bin', 'next');
  const child = spawn(process.execPath, [next, 'start', '-p', '0', '-H', '127.0.0.1'], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  let printed = '';
  return new Promise((resolve, reject) => {
    const failed = (why: string) => reject(new Error(`next start ${why}:\n${printed}`));
    const bound = setTimeout(() => failed('was not ready after 60 s'), 60_000);
    const read = (chunk: Buffer) => {
      printed += chunk.toString();
      const url = /Local:\s+(http:\/\/\S+)/.exec(printed)?.[1];
      if (url && /Ready in/.test(printed)) {
        clearTimeout(bound);
        resolve(url.replace(/\/$/, ''));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(bound);
      failed(`exited with ${code}`);
    });
  });
}

/** The environment of `next build` and `next start`: telemetry off, none of the app's settings. */
function nextEnv(settings: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { STRIPE_WEBHOOK_SECRET: _secret, DATABASE_FILE: _file, ...rest } = process.env;
  return { ...rest, NEXT_TELEMETRY_DISABLED: '1', ...settings };
}

beforeAll(async () => {
  await copyApp();
  await command('pnpm', ['install', '--prefer-offline', '--no-frozen-lockfile']);
  placeBetterSqlite3Binary();
  // Built without the webhook secret and without a database: neither is read before a request.
  const next = join(app, 'node_modules', 'next', 'dist', 'bin', 'next');
  buildOutput = await command(process.execPath, [next, 'build'], nextEnv());
  const db = new Database(databaseFile);
  await migrate(db);
  db.close();
  origin = await start(nextEnv({ STRIPE_WEBHOOK_SECRET: secret, DATABASE_FILE: databaseFile }));
}, 10 * 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill();
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

/** Sends a delivery to the running server over HTTP, at its path. */
const deliver = (delivery: signers.Delivery): Promise<Response> =>
  fetch(signers.toRequest(delivery, origin));

/** A `payment_intent.succeeded`, as Stripe signs it for `/api/webhooks/stripe`. */
const succeeded = (id: string, intent: string) =>
  stripe.event({
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: {
      object: { id: intent, object: 'payment_intent', amount_received: 4200, currency: 'eur' },
    },
  });

/** Reads the app's database beside the running server. */
function query(sql: string): unknown[] {
  const db = new Database(databaseFile, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('the example built by next build, served by next start', () => {
  it('builds the route as a dynamic handler, reading neither the secret nor the database', () => {
    expect(buildOutput).toMatch(/ƒ \/api\/webhooks\/stripe/);
    expect(existsSync(join(app, 'stripe-webhooks.sqlite'))).toBe(false);
  });

  it('books a signed event once: its duplicate gets the stored answer, replayed', async () => {
    const event = succeeded('evt_built_1', 'pi_built_1');
    const first = await deliver(event);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();
    expect(JSON.parse(firstBody)).toEqual({ received: true });

    const duplicate = await deliver(event.retry());
    expect(duplicate.status).toBe(200);
    expect(duplicate.headers.get('idempotent-replayed')).toBe('true');
    expect(duplicate.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await duplicate.text()).toBe(firstBody);

    // The handler's one write: a second run would have failed on the payment's primary key.
    expect(query("SELECT * FROM payments WHERE event_id = 'evt_built_1'")).toEqual([
      { payment_intent: 'pi_built_1', amount: 4200, currency: 'eur', event_id: 'evt_built_1' },
    ]);
    expect(
      query("SELECT status, attempts FROM webhook_receipts WHERE external_id = 'evt_built_1'"),
    ).toEqual([{ status: 'completed', attempts: 1 }]);
  });

  it('refuses a forged copy with 401, of a booked event or a new one, and writes nothing', async () => {
    const event = succeeded('evt_built_2', 'pi_built_2');
    expect((await deliver(event)).status).toBe(200);
    const copy = await deliver(event.forged());
    expect(copy.status).toBe(401);
    expect(copy.headers.get('idempotent-replayed')).toBeNull();
    expect((await deliver(succeeded('evt_built_3', 'pi_built_3').forged())).status).toBe(401);
    expect(
      query("SELECT event_id FROM payments WHERE event_id IN ('evt_built_2', 'evt_built_3')"),
    ).toEqual([{ event_id: 'evt_built_2' }]);
    expect(query("SELECT * FROM webhook_receipts WHERE external_id = 'evt_built_3'")).toEqual([]);
  });

  it('answers a 2 MiB delivery, over the 1 MiB limit, 413, and the sender reads it every time (10 rounds of 4 kinds of sender)', async () => {
    const outcomes = await sendOversized({
      url: origin,
      path: '/api/webhooks/stripe',
      bytes: 2 * 1024 * 1024,
      rounds: 10,
    });
    expect(outcomes).toEqual(allAnswered(outcomes, 413));
  });
});
