/**
 * The lease keeper on InMemoryInbox, on a clock the test moves (jest's fake timers, which the inbox
 * reads too): one timer renews every tracked lease in one call, before any of them can expire; an
 * untracked lease is no longer renewed; a lease taken over by another claim is reported lost once
 * and dropped (and known as reported until its owner untracks it); a lease its owner is ending is
 * never reported lost.
 */
import { type Delivery, InMemoryInbox } from '../../src/inbox';
import { LeaseKeeper } from '../../src/inbox/lease-keeper';

const START = Date.UTC(2026, 0, 1);
const LEASE_MS = 3000;

let inbox: InMemoryInbox;
let extendCalls: number[];
let failing: boolean;
let failures: unknown[];
let lost: Delivery[];

beforeEach(() => {
  jest.useFakeTimers({ now: START });
  inbox = new InMemoryInbox({ now: () => Date.now() });
  extendCalls = [];
  failing = false;
  failures = [];
  lost = [];
});
afterEach(() => {
  jest.useRealTimers();
});

const keeper = () =>
  new LeaseKeeper<Delivery>(
    {
      extend: async (leases, leaseMs) => {
        extendCalls.push(leases.length);
        if (failing) throw new Error('the inbox is down');
        return inbox.extend(leases, { leaseMs });
      },
      renewalFailed: (error) => void failures.push(error),
      leaseLost: (lease) => void lost.push(lease),
    },
    { leaseMs: LEASE_MS },
  );

async function claimed(n: number): Promise<Delivery[]> {
  for (let i = 1; i <= n; i++)
    await inbox.enqueue({
      provider: 'stripe',
      externalId: `evt_${i}`,
      orderingKey: null,
      headers: {},
      body: Buffer.from('{}'),
    });
  return inbox.lease({ providers: ['stripe'], limit: n, leaseMs: LEASE_MS });
}

/** Another worker's claim: it takes over only leases that have expired. */
const takeOver = () => inbox.lease({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });

it('renews every tracked lease before it can expire, for as long as it is tracked', async () => {
  const [delivery] = await claimed(1);
  const k = keeper();
  k.track(delivery!);
  for (let step = 0; step < 40; step++) {
    await jest.advanceTimersByTimeAsync(LEASE_MS / 4);
    expect(await takeOver()).toEqual([]);
    const stored = await inbox.find('stripe', 'evt_1');
    expect(stored!.availableAt.getTime()).toBeGreaterThan(Date.now());
  }
  expect(await inbox.find('stripe', 'evt_1')).toMatchObject({ status: 'processing', leases: 1 });
  expect(lost).toEqual([]);
});

it('has one timer for all the leases it tracks, and renews them in one call', async () => {
  const deliveries = await claimed(5);
  const k = keeper();
  expect(jest.getTimerCount()).toBe(0);
  for (const delivery of deliveries) k.track(delivery);
  expect(jest.getTimerCount()).toBe(1);
  expect(k.size).toBe(5);
  await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
  expect(extendCalls).toEqual([5]);
  await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
  expect(extendCalls).toEqual([5, 5]);
});

it('an untracked lease is no longer renewed; the timer stops with the last one', async () => {
  const [first, second] = await claimed(2);
  const k = keeper();
  k.track(first!);
  k.track(second!);
  k.untrack(first!);
  await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
  expect(extendCalls).toEqual([1]);
  k.untrack(second!);
  expect(jest.getTimerCount()).toBe(0);
  // Neither is renewed any more: both expire, and another claim takes them over.
  await jest.advanceTimersByTimeAsync(LEASE_MS);
  expect((await takeOver()).map((d) => [d.externalId, d.leases])).toEqual([
    ['evt_1', 2],
    ['evt_2', 2],
  ]);
  expect(extendCalls).toEqual([1]);
});

it('a lease taken over while renewals failed is reported lost once and no longer renewed; the others keep theirs', async () => {
  const [first, second] = await claimed(2);
  const k = keeper();
  k.track(first!);
  k.track(second!);
  failing = true;
  await jest.advanceTimersByTimeAsync(LEASE_MS + 1);
  expect(failures.length).toBeGreaterThan(0);
  // Both leases expired; another worker takes one of them over.
  const [taken] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
  expect(taken).toMatchObject({ externalId: 'evt_1', leases: 2 });
  failing = false;
  await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
  expect(lost).toEqual([first]);
  expect(k.size).toBe(1);
  // The other one was still held under its lease: renewed, not lost.
  expect(await inbox.find('stripe', 'evt_2')).toMatchObject({ status: 'processing', leases: 1 });
  await jest.advanceTimersByTimeAsync(LEASE_MS);
  expect(lost).toEqual([first]);
  expect(await takeOver()).toEqual([]);
  // What it reported stays known to its owner (whose own write then says nothing) until untracked.
  expect(k.reportedLost(first!)).toBe(true);
  expect(k.reportedLost(taken!)).toBe(false);
  expect(k.reportedLost(second!)).toBe(false);
  k.untrack(first!);
  expect(k.reportedLost(first!)).toBe(false);
});

it('never reports lost a lease its owner is ending, nor one it untracked meanwhile', async () => {
  const [first, second] = await claimed(2);
  const k = keeper();
  k.track(first!);
  k.track(second!);
  k.ending(first!);
  expect(await inbox.complete(first!)).toBe(true);
  // A renewal that starts before its owner untracks the other lease, ended meanwhile.
  const renewal = k.renew();
  k.untrack(second!);
  expect(await inbox.giveBack(second!, { delayMs: 0 })).toBe(true);
  await renewal;
  await jest.advanceTimersByTimeAsync(LEASE_MS);
  expect(lost).toEqual([]);
  expect(extendCalls[0]).toBe(2);
});

it('tells a lease taken over from one its owner ended in the same renewal', async () => {
  const [first, second] = await claimed(2);
  const k = keeper();
  k.track(first!);
  k.track(second!);
  failing = true;
  await jest.advanceTimersByTimeAsync(LEASE_MS + 1);
  const [taken] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
  expect(taken).toMatchObject({ externalId: 'evt_1', leases: 2 });
  // Its owner ends the other one (its lease expired but was not taken over: still its own).
  k.ending(second!);
  expect(await inbox.giveBack(second!, { delayMs: 60_000 })).toBe(true);
  failing = false;
  await k.renew();
  expect(lost).toEqual([first]);
});
