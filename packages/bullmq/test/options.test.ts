/**
 * What the bridge refuses, with a typed error naming what is wrong: relay options (ConfigError at
 * construction), processor options (core's ConfigError), and job data the relay did not make
 * (InvalidInboxJob, which BullMQ treats as unrecoverable).
 */
import { ConfigError, InMemoryStore } from '@webhook-idempotency/core';
import { SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import { Queue, UnrecoverableError } from 'bullmq';
import { bullmqProcessor, bullmqRelay, InvalidInboxJob } from '../src';
import { deliveryOfJob } from '../src/job-data';
import { redisConnection } from './helpers/redis';

const db = new Database(':memory:');
const inbox = new SqlInbox(db);
let queue: Queue;

beforeAll(() => {
  queue = new Queue('wi-options', { connection: redisConnection() });
});
afterAll(async () => {
  await queue.close();
  db.close();
});

const optionOf = (build: () => unknown): string => {
  try {
    build();
  } catch (error) {
    if (error instanceof ConfigError) return error.option;
    throw error;
  }
  throw new Error('no ConfigError thrown');
};

describe('bullmqRelay options', () => {
  const valid = () => ({ inbox, queue, providers: ['stripe'] });

  it('takes a BullMQ queue and job options over the defaults', () => {
    expect(bullmqRelay(valid()).running).toBe(false);
    expect(bullmqRelay({ ...valid(), jobOptions: { attempts: 3, priority: 2 } }).running).toBe(
      false,
    );
  });

  it.each([
    ['options', () => bullmqRelay(undefined as never)],
    ['queue', () => bullmqRelay({ ...valid(), queue: undefined as never })],
    ['queue', () => bullmqRelay({ ...valid(), queue: { add: () => 0 } as never })],
    ['jobOptions', () => bullmqRelay({ ...valid(), jobOptions: 'fast' as never })],
    ['jobOptions', () => bullmqRelay({ ...valid(), jobOptions: { jobId: 'mine' } as never })],
    [
      'jobOptions',
      () => bullmqRelay({ ...valid(), jobOptions: { deduplication: { id: 'x' } } as never }),
    ],
    [
      'jobOptions',
      () => bullmqRelay({ ...valid(), jobOptions: { repeat: { every: 1000 } } as never }),
    ],
    ['jobOptions', () => bullmqRelay({ ...valid(), jobOptions: { attempts: 0 } })],
    ['jobOptions', () => bullmqRelay({ ...valid(), jobOptions: { attempts: 2.5 } })],
    ['providers', () => bullmqRelay({ ...valid(), providers: [] })],
    ['inbox', () => bullmqRelay({ ...valid(), inbox: {} as never })],
    ['handoffTimeoutSeconds', () => bullmqRelay({ ...valid(), handoffTimeoutSeconds: 0 })],
  ])('refuses a bad %s', (option, build) => {
    expect(optionOf(build)).toBe(option);
  });
});

describe('bullmqProcessor options', () => {
  const handlers = { stripe: async () => 'ok' };

  it.each([
    ['store', () => bullmqProcessor({ inbox, handlers })],
    ['handlers', () => bullmqProcessor({ inbox, store: new InMemoryStore(), handlers: {} })],
    ['inbox', () => bullmqProcessor({ inbox: {} as never, store: new InMemoryStore(), handlers })],
    [
      'visibilityTimeoutSeconds',
      () =>
        bullmqProcessor({
          inbox,
          store: new InMemoryStore(),
          handlers,
          visibilityTimeoutSeconds: -1,
        }),
    ],
  ])('refuses a bad %s', (option, build) => {
    expect(optionOf(build)).toBe(option);
  });
});

describe('job data the relay did not make', () => {
  const job = (data: unknown) => ({ id: 'j1', data });
  const good = { id: 7, provider: 'stripe', externalId: 'evt_1', leases: 2 };
  const read = { ...good, attempts: 2 };

  it('is read back as exactly the fields of a relayed delivery, its lease count under both names', () => {
    expect(deliveryOfJob(job({ ...good, body: 'never carried' }))).toEqual(read);
  });

  it('queued before the rename (its lease count as attempts alone) is read back the same', () => {
    expect(
      deliveryOfJob(job({ id: 7, provider: 'stripe', externalId: 'evt_1', attempts: 2 })),
    ).toEqual(read);
  });

  it.each([
    ['job.data', null],
    ['job.data', 'evt_1'],
    ['job.data.id', { ...good, id: 0 }],
    ['job.data.id', { ...good, id: '7' }],
    ['job.data.leases', { ...good, leases: undefined }],
    ['job.data.attempts', { ...good, leases: undefined, attempts: 0 }],
    ['job.data.leases', { ...good, attempts: 3 }],
    ['job.data.provider', { ...good, provider: '' }],
    ['job.data.externalId', { ...good, externalId: 42 }],
  ])('is refused with InvalidInboxJob naming %s', (field, data) => {
    let thrown: unknown;
    try {
      deliveryOfJob(job(data));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInboxJob);
    // BullMQ fails such a job at once instead of retrying it.
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(thrown).toMatchObject({ name: 'InvalidInboxJob', field, jobId: 'j1' });
    expect((thrown as Error).message).toMatch(/^Job j1 is not an inbox delivery: job\.data/);
    expect((thrown as Error).message).not.toMatch(/see docs/);
  });
});
