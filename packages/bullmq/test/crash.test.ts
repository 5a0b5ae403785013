/**
 * A BullMQ consumer killed mid-job (issue 12), on PostgreSQL, MariaDB and a SQLite file: a forked worker
 * process SIGKILLs itself inside the handler (its write uncommitted), after the commit but before
 * the inbox row is done, or after that but before BullMQ completes the job. A second worker
 * picks the stalled job up (short lock and stall check), and the business effect happens once:
 * run by the second worker once the dead one's receipt is stale (the stalled job gives the
 * delivery back, the relay hands it over again), replayed from the receipt, or skipped.
 */
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConsumeOutcome,
  jobIdOf,
  type QueuedDelivery,
} from '@webhook-idempotency/core/adapter';
import { type Job, Queue, Worker } from 'bullmq';
import { bullmqProcessor, bullmqRelay } from '../src';
import {
  book,
  connect,
  type Connected,
  type Fixture,
  fixture,
  type Target,
  targets,
} from './helpers/fixture';
import { redisConnection } from './helpers/redis';
import type { CrashTask } from './helpers/worker-child';

const connection = redisConnection();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const VISIBILITY_SECONDS = 2;
const CHILD = join(__dirname, 'helpers', 'worker-child.ts');

/** Forks the crashing worker, waits until it is ready, then until it is gone; resolves with its exit signal. */
async function crashingWorker(task: CrashTask): Promise<{ pid: number; signal: string | null }> {
  const child = fork(CHILD, [JSON.stringify(task)], {
    execArgv: ['-r', require.resolve('@webhook-idempotency/test-support/register')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages: Array<{ type: string; error?: string }> = [];
  child.on('message', (message: { type: string }) => void messages.push(message));
  const exit = new Promise<string | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  // Bounded: a child that neither dies nor finishes fails the test instead of hanging it.
  const timeout = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const signal = await exit;
  clearTimeout(timeout);
  const errors = messages.filter((m) => m.type === 'error');
  if (errors.length) throw new Error(`worker failed: ${errors.map((m) => m.error).join('\n')}`);
  expect(messages.map((m) => m.type)).toContain('ready');
  return { pid: child.pid!, signal };
}

describe.each(targets('bullmq_crash'))('a BullMQ worker killed mid-job (%s)', (_name, open) => {
  let target: Target;
  let connected: Connected;
  let f: Fixture;
  let queue: Queue<QueuedDelivery>;
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    target = await open();
    connected = connect(target);
  });
  afterAll(() => connected.close());
  beforeEach(async () => {
    f = await fixture(connected, 'bqc');
    queue = new Queue(f.tables.inbox, { connection });
    closers.push(() => queue.obliterate({ force: true }).then(() => queue.close()));
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The second worker, in this process: it finds the dead worker's job stalled and runs it. */
  const survivor = () => {
    const errors: unknown[] = [];
    const w = new Worker<QueuedDelivery, ConsumeOutcome>(
      queue.name,
      bullmqProcessor({
        inbox: f.inbox,
        store: f.store as never,
        handlers: { stripe: book(connected, f.tables) },
        visibilityTimeoutSeconds: VISIBILITY_SECONDS,
      }),
      { connection, lockDuration: 1000, stalledInterval: 200 },
    );
    w.on('error', (error) => void errors.push(error));
    closers.push(async () => {
      await w.close();
      expect(errors).toEqual([]);
    });
  };
  const finished = async (jobId: string): Promise<Job<QueuedDelivery, ConsumeOutcome>> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      // The state first, then the job: a job read before it finished would show no result.
      const state = await queue.getJobState(jobId);
      const job = await queue.getJob(jobId);
      if (job && (state === 'completed' || state === 'failed')) return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${state}`);
      await sleep(25);
    }
  };

  /** Hands evt_1 off, lets the forked worker die at `dieAt` holding its job; returns the job id and the dead pid. */
  const crashAt = async (dieAt: CrashTask['dieAt']) => {
    await f.enqueue('evt_1');
    expect(await bullmqRelay({ inbox: f.inbox, queue, providers: ['stripe'] }).runOnce()).toBe(1);
    const jobId = jobIdOf((await f.inbox.find('stripe', 'evt_1'))!);
    const marker = join(mkdtempSync(join(tmpdir(), 'wi-bullmq-')), 'died');
    const dead = await crashingWorker({
      target,
      tables: f.tables,
      queue: queue.name,
      redisUrl: process.env.WI_REDIS_URL!,
      dieAt,
      marker,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS,
      lockDurationMs: 1000,
      stalledIntervalMs: 200,
    });
    expect(dead.signal).toBe('SIGKILL');
    expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe(`${dieAt} ${dead.pid}`);
    // BullMQ still has the job active, locked by the dead worker.
    expect(await (await queue.getJob(jobId))!.getState()).toBe('active');
    return { jobId, deadPid: dead.pid };
  };

  it('killed inside the handler (its write uncommitted): the stalled job gives the delivery back, and once the receipt is stale it runs once', async () => {
    const { jobId } = await crashAt('in-handler');
    expect(await f.effects()).toEqual([]);
    survivor();
    // The dead worker's receipt claim is not stale yet: the job gives the delivery back to the inbox.
    expect((await finished(jobId)).returnvalue).toBe('given-back');
    const relay = bullmqRelay({ inbox: f.inbox, queue, providers: ['stripe'], pollIntervalMs: 50 });
    relay.start();
    closers.push(() => relay.stop());
    const deadline = Date.now() + 20_000;
    let again = jobId;
    while (again === jobId && Date.now() < deadline) {
      await sleep(50);
      again = jobIdOf((await f.inbox.find('stripe', 'evt_1'))!);
    }
    expect((await finished(again)).returnvalue).toBe('processed');
    expect(await f.effects()).toEqual([{ id: 'evt_1', writtenBy: process.pid }]);
    expect((await f.inbox.find('stripe', 'evt_1'))!.status).toBe('done');
  });

  it('killed after the commit, before the delivery was marked done: the second worker replays it from the receipt', async () => {
    const { jobId, deadPid } = await crashAt('after-commit');
    expect(await f.effects()).toEqual([{ id: 'evt_1', writtenBy: deadPid }]);
    expect((await f.inbox.find('stripe', 'evt_1'))!.status).toBe('processing');
    survivor();
    const job = await finished(jobId);
    expect(job.returnvalue).toBe('replayed');
    expect(await f.effects()).toEqual([{ id: 'evt_1', writtenBy: deadPid }]);
    expect((await f.inbox.find('stripe', 'evt_1'))!.status).toBe('done');
  });

  it('killed after the delivery was done, before BullMQ completed the job: the second worker skips it', async () => {
    const { jobId, deadPid } = await crashAt('after-done');
    expect((await f.inbox.find('stripe', 'evt_1'))!.status).toBe('done');
    survivor();
    const job = await finished(jobId);
    expect(job.returnvalue).toBe('skipped');
    expect(await f.effects()).toEqual([{ id: 'evt_1', writtenBy: deadPid }]);
  });
});
