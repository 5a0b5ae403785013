/**
 * `inbox({ backpressure })` on the endpoint over an in-memory inbox: options refused with a typed
 * error naming them; the backlog read cached (not one per request); the age budget, a preset's
 * 429; what happens when the backlog read or the duplicate check fails.
 */
import type { HttpRequest, ProviderPreset } from '@webhook-idempotency/core';
import { ConfigError } from '@webhook-idempotency/core';
import { createInboxEngine } from '@webhook-idempotency/core/adapter';
import { type InboxEvent, type InboxOptions, InMemoryInbox } from '@webhook-idempotency/core/inbox';

const preset = (extra: Partial<ProviderPreset> = {}): ProviderPreset => ({
  provider: 'acme',
  key: (r) => r.headers['x-id'] as string | undefined,
  verify: () => true,
  needsRawBody: true,
  retentionDays: 1,
  ...extra,
});
const post = (id: string): HttpRequest => ({
  method: 'POST',
  url: '/hook',
  headers: { 'x-id': id },
  rawBody: Buffer.from(`{"id":"${id}"}`),
  body: undefined,
  native: null,
});
const stored = (id: string) => ({
  provider: 'acme',
  externalId: id,
  orderingKey: null,
  headers: {},
  body: Buffer.from('{}'),
});

/** An inbox whose backlog and find reads are counted, and can be made to fail. */
function counted(inbox: InboxStore) {
  const reads = { backlog: 0, find: 0, failBacklog: false, failFind: false };
  const wrapped = Object.assign(Object.create(inbox) as InboxStore, {
    backlog: (input: Parameters<InboxStore['backlog']>[0]) => {
      reads.backlog++;
      return reads.failBacklog ? Promise.reject(new Error('ECONNRESET')) : inbox.backlog(input);
    },
    find: (provider: string, externalId: string) => {
      reads.find++;
      return reads.failFind
        ? Promise.reject(new Error('ECONNRESET'))
        : inbox.find(provider, externalId);
    },
  });
  return { inbox: wrapped, reads };
}
type InboxStore = InMemoryInbox;

const statusOf = async (
  engine: ReturnType<typeof createInboxEngine>,
  id: string,
): Promise<number | undefined> => {
  const decision = await engine.accept(post(id));
  return decision.action === 'respond' ? decision.response.status : undefined;
};

describe('inbox({ backpressure }) options', () => {
  const engine = (backpressure: unknown) => () =>
    createInboxEngine({
      inbox: new InMemoryInbox(),
      preset: preset(),
      backpressure,
    } as InboxOptions);

  it.each([
    [{ maxPending: -1 }, 'backpressure.maxPending'],
    [{ maxPending: 0 }, 'backpressure.maxPending'],
    [{ maxPending: 2.5 }, 'backpressure.maxPending'],
    [{ maxPendingAgeMs: -1000 }, 'backpressure.maxPendingAgeMs'],
    [{ maxPending: 10, refreshMs: -1 }, 'backpressure.refreshMs'],
    [{ maxPending: 10, resumeAt: 0 }, 'backpressure.resumeAt'],
    [{ maxPending: 10, resumeAt: 1.5 }, 'backpressure.resumeAt'],
    [{ maxPending: 10, status: 418 }, 'backpressure.status'],
    [{ maxPending: 10, retryAfterSeconds: { min: 0 } }, 'backpressure.retryAfterSeconds.min'],
    [
      { maxPending: 10, retryAfterSeconds: { min: 5, max: 2 } },
      'backpressure.retryAfterSeconds.max',
    ],
    [{ maxPending: 10, retryAfterSeconds: 5 }, 'backpressure.retryAfterSeconds'],
    [{ maxPending: 10, depth: 3 }, 'backpressure.depth'],
    [{}, 'backpressure'],
    [true, 'backpressure'],
  ])('%j is a ConfigError naming %s', (value, option) => {
    expect(engine(value)).toThrow(ConfigError);
    expect(engine(value)).toThrow(expect.objectContaining({ option }));
  });

  it('a preset with a backpressureStatus other than 429 or 503 is refused, naming it', () => {
    const bad = preset({ backpressureStatus: 500 as 503 });
    expect(() =>
      createInboxEngine({
        inbox: new InMemoryInbox(),
        preset: bad,
        backpressure: { maxPending: 1 },
      }),
    ).toThrow(expect.objectContaining({ option: 'preset.backpressureStatus' }));
  });
});

describe('inbox({ backpressure }) on the endpoint', () => {
  it('reads the backlog once per refreshMs, not once per request, while under budget', async () => {
    const { inbox, reads } = counted(new InMemoryInbox());
    const engine = createInboxEngine({
      inbox,
      preset: preset(),
      backpressure: { maxPending: 1000, refreshMs: 3_600_000 },
    });
    for (let i = 0; i < 50; i++) expect(await statusOf(engine, `evt_${i}`)).toBe(200);
    expect(reads.backlog).toBe(1);
    expect(reads.find).toBe(0);
  });

  it('while refused: no new backlog read per request within refreshMs, one key read each', async () => {
    const memory = new InMemoryInbox();
    await memory.enqueue(stored('evt_0'));
    const { inbox, reads } = counted(memory);
    const engine = createInboxEngine({
      inbox,
      preset: preset(),
      backpressure: { maxPending: 1, refreshMs: 3_600_000 },
    });
    for (let i = 1; i <= 20; i++) expect(await statusOf(engine, `evt_${i}`)).toBe(503);
    expect([reads.backlog, reads.find]).toEqual([1, 20]);
    expect(await memory.list()).toHaveLength(1);
  });

  it("refuses by age with the preset's 429, Retry-After and the backpressure events; the option overrides the status", async () => {
    let now = 1_000_000;
    const memory = new InMemoryInbox({ now: () => now });
    await memory.enqueue(stored('evt_old'));
    now += 60_000;
    const events: InboxEvent[] = [];
    const options = {
      inbox: memory,
      preset: preset({ backpressureStatus: 429 }),
      backpressure: { maxPendingAgeMs: 30_000, retryAfterSeconds: { min: 7 } },
      onEvent: (event: InboxEvent) => events.push(event),
    };
    const decision = await createInboxEngine(options).accept(post('evt_new'));
    expect(decision).toMatchObject({
      action: 'respond',
      stored: false,
      response: { status: 429, headers: { 'retry-after': '7' } },
    });
    if (decision.action !== 'respond') throw new Error('not answered');
    expect(JSON.parse(Buffer.from(decision.response.body).toString('utf8'))).toMatchObject({
      code: 'ERR_IDEMPOTENCY_BACKPRESSURE',
    });
    expect(events).toEqual([
      expect.objectContaining({ type: 'backpressure', state: 'started', oldestAgeMs: 60_000 }),
      expect.objectContaining({ type: 'answered', outcome: 'backpressure', status: 429 }),
    ]);
    const overridden = { ...options, backpressure: { maxPendingAgeMs: 30_000, status: 503 } };
    expect(await statusOf(createInboxEngine(overridden as InboxOptions), 'evt_new')).toBe(503);
    expect(await memory.find('acme', 'evt_new')).toBeNull();
  });

  it('a failed backlog read is a store-error event and stores as usual (no figures, no refusal)', async () => {
    const { inbox, reads } = counted(new InMemoryInbox());
    reads.failBacklog = true;
    const events: InboxEvent[] = [];
    const engine = createInboxEngine({
      inbox,
      preset: preset(),
      backpressure: { maxPending: 1 },
      onEvent: (event) => events.push(event),
    });
    expect(await statusOf(engine, 'evt_1')).toBe(200);
    expect(events[0]).toMatchObject({ type: 'store-error', operation: 'backlog' });
    expect(await inbox.find('acme', 'evt_1')).not.toBeNull();
  });

  it('while refused, a failed duplicate check refuses (503) and reports it; nothing is stored', async () => {
    const memory = new InMemoryInbox();
    await memory.enqueue(stored('evt_0'));
    const { inbox, reads } = counted(memory);
    reads.failFind = true;
    const events: InboxEvent[] = [];
    const engine = createInboxEngine({
      inbox,
      preset: preset(),
      backpressure: { maxPending: 1 },
      onEvent: (event) => events.push(event),
    });
    expect(await statusOf(engine, 'evt_0')).toBe(503);
    expect(events.map((e) => e.type)).toEqual(['backpressure', 'store-error', 'answered']);
    expect(await memory.list()).toHaveLength(1);
  });

  it('a duplicate while refused is answered with the replayed header and a duplicate event', async () => {
    const memory = new InMemoryInbox();
    await memory.enqueue(stored('evt_0'));
    const events: InboxEvent[] = [];
    const engine = createInboxEngine({
      inbox: memory,
      preset: preset(),
      backpressure: { maxPending: 1 },
      onEvent: (event) => events.push(event),
    });
    const decision = await engine.accept(post('evt_0'));
    expect(decision).toMatchObject({
      stored: false,
      response: { status: 200, headers: { 'Idempotent-Replayed': 'true' } },
    });
    expect(events.map((e) => e.type)).toEqual(['backpressure', 'duplicate', 'answered']);
  });
});
