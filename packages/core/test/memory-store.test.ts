import { InMemoryStore, type ClaimResult, type Store } from '../src';
import { conformanceCases, runCase, runStoreConformance } from '../src/testing';

runStoreConformance({ name: 'InMemoryStore', makeStore: () => ({ store: new InMemoryStore() }) });

/**
 * The suite must catch the classic bugs: a claim that reads, then inserts if absent, a complete
 * that is not fenced at all, and complete/fail fenced by attempts alone (a token that restarts at
 * 1 after a purge). These broken stores prove it would.
 */
describe('the conformance suite rejects broken stores', () => {
  const byName = (fragment: string) => {
    const found = conformanceCases.find((c) => c.name.includes(fragment));
    if (!found) throw new Error(`no case named like ${fragment}`);
    return found;
  };

  class SelectThenInsertStore extends InMemoryStore {
    override async claim(
      key: Parameters<Store['claim']>[0],
      input: Parameters<Store['claim']>[1],
    ): Promise<ClaimResult> {
      const existing = await this.find(key, input);
      // The round trip between the SELECT and the INSERT, where a second delivery slips in.
      await new Promise((resolve) => setImmediate(resolve));
      if (existing) return { won: false, receipt: existing };
      const { receipt } = await super.claim(key, input);
      // Without a unique index nothing tells this caller that another INSERT got there first.
      return { won: true, receipt };
    }
  }

  class UnfencedStore extends InMemoryStore {
    override async complete(
      key: Parameters<Store['complete']>[0],
      input: Parameters<Store['complete']>[1],
    ): Promise<boolean> {
      const found = await this.find(key, input);
      return found
        ? super.complete(key, { ...input, attempts: found.attempts, claimedAt: found.claimedAt })
        : false;
    }
  }

  /** The store contract before claimedAt: complete and fail fenced by attempts only. */
  class AttemptsOnlyStore extends InMemoryStore {
    override async complete(
      key: Parameters<Store['complete']>[0],
      input: Parameters<Store['complete']>[1],
    ): Promise<boolean> {
      const { claimedAt: _ignored, ...attemptsOnly } = input;
      return super.complete(key, attemptsOnly);
    }

    override async fail(
      key: Parameters<Store['fail']>[0],
      input: Parameters<Store['fail']>[1],
    ): Promise<boolean> {
      const { claimedAt: _ignored, ...attemptsOnly } = input;
      return super.fail(key, attemptsOnly);
    }
  }

  /** Records no fingerprint on reclaim: a forged first delivery's would pin the key. */
  class KeepsFingerprintStore extends InMemoryStore {
    override async reclaim(
      key: Parameters<Store['reclaim']>[0],
      input: Parameters<Store['reclaim']>[1],
    ) {
      const { fingerprint: _ignored, ...withoutFingerprint } = input;
      return super.reclaim(key, withoutFingerprint);
    }
  }

  /** Adds 1 to a total per write, whatever the write's count: the counts of a tally are lost. */
  class CountsWritesStore extends InMemoryStore {
    override addIgnored(...[counts, at]: Parameters<InMemoryStore['addIgnored']>) {
      return super.addIgnored(
        counts.map((entry) => ({ ...entry, count: 1 })),
        at,
      );
    }
  }

  it("ignored totals that do not add each write's count fail the adding and the racing cases", async () => {
    for (const name of ['adds counts to one total', 'loses no count']) {
      await expect(runCase(byName(name), { store: new CountsWritesStore() })).rejects.toThrow();
      await expect(runCase(byName(name), { store: new InMemoryStore() })).resolves.toBeUndefined();
    }
  });

  it('a store that does not declare ignoredCounts, or declares it falsely, fails the declaration case', async () => {
    const declaration = byName('declares ignoredCounts');
    const undeclared = new InMemoryStore();
    Object.assign(undeclared, {
      capabilities: { crossProcess: false, transactional: false, clock: 'caller' },
    });
    await expect(runCase(declaration, { store: undeclared })).rejects.toThrow();
    const denied = new InMemoryStore();
    Object.assign(denied, { capabilities: { ...denied.capabilities, ignoredCounts: false } });
    await expect(runCase(declaration, { store: denied })).rejects.toThrow();
    await expect(runCase(declaration, { store: new InMemoryStore() })).resolves.toBeUndefined();
  });

  it('a SELECT-then-INSERT claim fails the parallel-claims case', async () => {
    await expect(
      runCase(byName('parallel claims on one key'), { store: new SelectThenInsertStore() }),
    ).rejects.toThrow();
  });

  it('the same case passes on the real InMemoryStore', async () => {
    await expect(
      runCase(byName('parallel claims on one key'), { store: new InMemoryStore() }),
    ).resolves.toBeUndefined();
  });

  it('a complete that ignores attempts fails the fencing case', async () => {
    await expect(runCase(byName('fencing'), { store: new UnfencedStore() })).rejects.toThrow();
  });

  it('complete and fail fenced by attempts alone fail the purge-and-claim-anew case and the claimedAt cases', async () => {
    const reused = byName('after takeover, completion, purge and a new claim');
    await expect(runCase(reused, { store: new AttemptsOnlyStore() })).rejects.toThrow(
      /Expected: false/,
    );
    await expect(
      runCase(byName('complete with the claimedAt'), { store: new AttemptsOnlyStore() }),
    ).rejects.toThrow();
    await expect(
      runCase(byName('fail with the claimedAt'), { store: new AttemptsOnlyStore() }),
    ).rejects.toThrow();
    // The same cases pass on the real store: what fails above is the missing fence, not the case.
    await expect(runCase(reused, { store: new InMemoryStore() })).resolves.toBeUndefined();
  });

  it('a reclaim that ignores the fingerprint fails the reclaim-fingerprint case', async () => {
    const recorded = byName('reclaiming with a fingerprint records it');
    await expect(runCase(recorded, { store: new KeepsFingerprintStore() })).rejects.toThrow();
    await expect(runCase(recorded, { store: new InMemoryStore() })).resolves.toBeUndefined();
  });
});

describe('InMemoryStore', () => {
  it('declares itself single-process, non-transactional, caller-clocked', () => {
    expect(new InMemoryStore().capabilities).toEqual({
      crossProcess: false,
      transactional: false,
      clock: 'caller',
      ignoredCounts: true,
    });
  });

  it('returns copies: mutating a returned receipt does not change the store', async () => {
    const store = new InMemoryStore();
    const key = { provider: 'p', externalId: '1' };
    const { receipt } = await store.claim(key, { now: 0, fingerprint: null });
    (receipt as { attempts: number }).attempts = 99;
    expect((await store.find(key, { now: 0 }))?.attempts).toBe(1);
    expect(store.size).toBe(1);
    expect(store.list()).toHaveLength(1);
  });

  it('keeps keys apart by provider and id, counts them, and purges one provider alone', async () => {
    const store = new InMemoryStore();
    const keys = [
      { provider: 'a:b', externalId: 'c' },
      { provider: 'a', externalId: 'b:c' },
      { provider: 'a', externalId: 'x' },
    ];
    for (const key of keys) {
      const { won, receipt } = await store.claim(key, { now: 0, fingerprint: null });
      expect(won).toBe(true);
      const fence = { now: 1, attempts: 1, claimedAt: receipt.claimedAt };
      expect(await store.complete(key, { ...fence, response: key.provider })).toBe(true);
    }
    expect(store.size).toBe(3);
    expect((await store.find(keys[0]!, { now: 2 }))?.response).toBe('a:b');
    expect((await store.find(keys[1]!, { now: 2 }))?.response).toBe('a');
    expect(await store.purge({ now: 10, olderThanMs: 1, provider: 'a' })).toBe(2);
    expect(store.size).toBe(1);
    expect(await store.known(keys)).toEqual([true, false, false]);
    expect(store.list().map((receipt) => receipt.provider)).toEqual(['a:b']);
  });

  it('fences complete and fail to the millisecond of the claim time it handed out, under a clock with fractions of one', async () => {
    const store = new InMemoryStore();
    const key = { provider: 'p', externalId: 'frac' };
    const now = 1_700_000_000_123.75;
    const { receipt } = await store.claim(key, { now, fingerprint: null });
    expect(receipt.claimedAt.getTime()).toBe(1_700_000_000_123);
    const off = new Date(receipt.claimedAt.getTime() + 1);
    const fence = { now: now + 1, attempts: 1 };
    expect(await store.complete(key, { ...fence, claimedAt: off, response: '1' })).toBe(false);
    expect(await store.fail(key, { ...fence, claimedAt: off, error: 'x' })).toBe(false);
    const claimedAt = receipt.claimedAt;
    expect(await store.complete(key, { ...fence, claimedAt, response: '1' })).toBe(true);
    expect((await store.find(key, { now: now + 2 }))?.status).toBe('completed');
  });
});

describe('InMemoryStore bounds', () => {
  const key = (id: number | string) => ({ provider: 'p', externalId: String(id) });
  const claimed = (store: InMemoryStore, id: number | string, now = 0) =>
    store.claim(key(id), { now, fingerprint: null });
  async function completed(store: InMemoryStore, id: number | string, now = 0): Promise<void> {
    const { receipt } = await claimed(store, id, now);
    await store.complete(key(id), {
      now,
      attempts: 1,
      claimedAt: receipt.claimedAt,
      response: 'r',
    });
  }

  it('holds at most maxReceipts, dropping the receipt that finished longest ago', async () => {
    const store = new InMemoryStore({ maxReceipts: 3 });
    await completed(store, 'a');
    await completed(store, 'b');
    await completed(store, 'c');
    await completed(store, 'd');
    expect(store.size).toBe(3);
    expect(await store.find(key('a'), { now: 0 })).toBeNull();
    expect((await store.find(key('b'), { now: 0 }))?.status).toBe('completed');
    // 'a' is gone, so its duplicate is a first delivery again: the documented cost of the bound.
    expect((await claimed(store, 'a')).won).toBe(true);
  });

  it('never drops a processing receipt, even past the bound', async () => {
    const store = new InMemoryStore({ maxReceipts: 2 });
    for (const id of ['x', 'y', 'z']) expect((await claimed(store, id)).won).toBe(true);
    expect(store.size).toBe(3);
    for (const id of ['x', 'y', 'z']) expect((await claimed(store, id)).won).toBe(false);
    // Once one finishes it is the first to go when the next claim needs room.
    const x = (await store.find(key('x'), { now: 0 }))!;
    await store.fail(key('x'), { now: 0, attempts: 1, claimedAt: x.claimedAt, error: 'e' });
    await claimed(store, 'w');
    expect(await store.find(key('x'), { now: 0 })).toBeNull();
    expect((await store.find(key('y'), { now: 0 }))?.status).toBe('processing');
  });

  it('shrinks back to the bound once the claims that pushed it past finish', async () => {
    const store = new InMemoryStore({ maxReceipts: 2 });
    const inFlight = [];
    for (const id of ['p1', 'p2', 'p3', 'p4']) inFlight.push((await claimed(store, id)).receipt);
    for (const [i, receipt] of inFlight.entries()) {
      await store.complete(key(`p${i + 1}`), {
        now: 0,
        attempts: 1,
        claimedAt: receipt.claimedAt,
        response: 'r',
      });
    }
    await completed(store, 'next');
    expect(store.size).toBe(2);
  });

  it('a receipt taken over after a failure counts as finished again only when it finishes again', async () => {
    const store = new InMemoryStore({ maxReceipts: 2 });
    const first = await claimed(store, 'f');
    await store.fail(key('f'), {
      now: 0,
      attempts: 1,
      claimedAt: first.receipt.claimedAt,
      error: 'e',
    });
    await completed(store, 'g');
    const taken = await store.reclaim(key('f'), { now: 1, attempts: 1, staleAfterMs: 1000 });
    expect(taken?.status).toBe('processing');
    await claimed(store, 'h'); // over the bound: 'g' is the only finished receipt
    expect(await store.find(key('g'), { now: 1 })).toBeNull();
    expect((await store.find(key('f'), { now: 1 }))?.status).toBe('processing');
  });

  it('drops finished receipts older than retentionSeconds as claims arrive', async () => {
    const store = new InMemoryStore({ retentionSeconds: 60 });
    await completed(store, 'old', 0);
    await completed(store, 'new', 50_000);
    await claimed(store, 'late', 70_000);
    expect(await store.find(key('old'), { now: 70_000 })).toBeNull();
    expect((await store.find(key('new'), { now: 70_000 }))?.status).toBe('completed');
    expect(store.size).toBe(2);
  });

  it('stays at its bound over a long run (memory does not grow with deliveries)', async () => {
    const store = new InMemoryStore({ maxReceipts: 1_000 });
    for (let i = 0; i < 20_000; i++) await completed(store, i, i);
    expect(store.size).toBe(1_000);
    expect((await store.find(key(19_999), { now: 20_000 }))?.status).toBe('completed');
    expect(await store.find(key(18_999), { now: 20_000 })).toBeNull();
  });

  it('keeps 10,000 receipts by default and refuses a bound that is not one', async () => {
    const store = new InMemoryStore();
    for (let i = 0; i < 10_001; i++) await completed(store, i);
    expect(store.size).toBe(10_000);
    expect(new InMemoryStore({ maxReceipts: Number.POSITIVE_INFINITY }).size).toBe(0);
    for (const maxReceipts of [0, -1, 1.5, Number.NaN, '10' as never]) {
      expect(() => new InMemoryStore({ maxReceipts })).toThrow(/maxReceipts/);
    }
    for (const retentionSeconds of [0, -5, Number.NaN]) {
      expect(() => new InMemoryStore({ retentionSeconds })).toThrow(/retentionSeconds/);
    }
  });
});

describe('InMemoryStore.forget', () => {
  const key = { provider: 'stripe', externalId: 'evt_forget' };

  it('deletes a finished receipt fenced on what was read; never a processing one or one that changed', async () => {
    const store = new InMemoryStore();
    const { receipt } = await store.claim(key, { now: 1_000, fingerprint: null });
    expect(store.forget(key, receipt)).toBe(false);
    await store.complete(key, {
      now: 1_500,
      attempts: 1,
      claimedAt: receipt.claimedAt,
      response: 'ok',
    });
    expect(store.forget(key, { attempts: 2, claimedAt: receipt.claimedAt })).toBe(false);
    expect(store.forget(key, { attempts: 1, claimedAt: new Date(999) })).toBe(false);
    expect(store.forget(key, receipt)).toBe(true);
    expect(await store.find(key, { now: 2_000 })).toBeNull();
    expect(store.forget(key, receipt)).toBe(false);
    expect((await store.claim(key, { now: 3_000, fingerprint: null })).won).toBe(true);
  });
});
