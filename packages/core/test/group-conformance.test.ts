/**
 * The group operations of the Store contract (`known`, `recordFirst`) and a group of first runs
 * as the guard runs it: the conformance cases must fail a store that records some entries of a
 * call and not the others, overwrites a receipt, reads and then inserts, ignores the handler time,
 * or has no group operations at all; the real InMemoryStore passes them.
 */
import { InMemoryStore, type KeyLike, type Store } from '../src';
import type { FirstRun } from '../src/adapter';
import { conformanceCases, runCase } from '../src/testing';

const byName = (fragment: string) => {
  const found = conformanceCases.find((c) => c.name.includes(fragment));
  if (!found) throw new Error(`no case named like ${fragment}`);
  return found;
};

const ALL_OR_NOTHING = byName('recordFirst is all or nothing');
const RACING = byName('N parallel recordFirst calls sharing a key');
const FINAL = byName('a recorded receipt is final');
const HANDLER_TIME = byName('each its own handler time');
const KNOWN = byName('known tells, per key in order');
const GROUP = byName('a group runs the keys without a receipt');
const CONFLICT = byName('a group whose key got a receipt meanwhile');
const TWICE = byName('naming one key twice');

type At = Parameters<Store['find']>[1];

/** Records every entry whose key is free, and says false when one was not: some, not all. */
class PartialStore extends InMemoryStore {
  override async recordFirst(entries: readonly FirstRun[], at: At): Promise<boolean> {
    let all = true;
    for (const entry of entries)
      if ((await this.known([entry.key]))[0]) all = false;
      else await super.recordFirst([entry], at);
    return all;
  }
}

/** Writes every entry, settling or forgetting whatever receipt its key had. */
class OverwritingStore extends InMemoryStore {
  override async recordFirst(entries: readonly FirstRun[], at: At): Promise<boolean> {
    for (const { key, response } of entries) {
      const existing = await this.find(key, at);
      if (existing?.status === 'processing')
        await this.complete(key, { ...at, ...existing, response });
      else {
        if (existing) this.forget(key, existing);
        await super.recordFirst([{ key, response, handlerMs: 0 }], at);
      }
    }
    return true;
  }
}

/** Reads which keys are free, lets a turn of the event loop pass (a round trip), then writes. */
class ReadThenInsertStore extends InMemoryStore {
  override async recordFirst(entries: readonly FirstRun[], at: At): Promise<boolean> {
    if ((await this.known(entries.map((e) => e.key))).some(Boolean)) return false;
    await new Promise((resolve) => setImmediate(resolve));
    for (const { key, response } of entries) {
      await this.forgetAny(key, at);
      await super.recordFirst([{ key, response, handlerMs: 0 }], at);
    }
    return true;
  }

  private async forgetAny(key: KeyLike, at: At): Promise<void> {
    const existing = await this.find(key, at);
    if (existing) this.forget(key, existing);
  }
}

/** Records the receipts as if their handlers took no time. */
class NoHandlerTimeStore extends InMemoryStore {
  override recordFirst(entries: readonly FirstRun[], at: At): Promise<boolean> {
    return super.recordFirst(
      entries.map((e) => ({ ...e, handlerMs: 0 })),
      at,
    );
  }
}

/** Knows only completed receipts (a cache of answers, not of keys). */
class KnowsCompletedOnlyStore extends InMemoryStore {
  override async known(keys: readonly KeyLike[]): Promise<boolean[]> {
    const now = { now: 0 };
    return Promise.all(
      keys.map(async (key) => (await this.find(key, now))?.status === 'completed'),
    );
  }
}

/** A store written against the contract before groups. */
class NoGroupStore extends InMemoryStore {
  override known = undefined as never;
  override recordFirst = undefined as never;
}

describe('the conformance suite rejects broken group operations', () => {
  it('a recordFirst that records some entries and not the others fails the all-or-nothing case', async () => {
    await expect(runCase(ALL_OR_NOTHING, { store: new PartialStore() })).rejects.toThrow();
    await expect(runCase(TWICE, { store: new PartialStore() })).rejects.toThrow();
  });

  it('a recordFirst that overwrites a receipt fails the all-or-nothing and the final-receipt cases', async () => {
    await expect(runCase(ALL_OR_NOTHING, { store: new OverwritingStore() })).rejects.toThrow();
    await expect(runCase(FINAL, { store: new OverwritingStore() })).rejects.toThrow();
  });

  it('a recordFirst that reads, then inserts, fails the racing case', async () => {
    await expect(runCase(RACING, { store: new ReadThenInsertStore() })).rejects.toThrow();
  });

  it('a recordFirst that drops the handler time fails the handler-time case', async () => {
    await expect(runCase(HANDLER_TIME, { store: new NoHandlerTimeStore() })).rejects.toThrow();
  });

  it('a known that knows only completed receipts fails the known case', async () => {
    await expect(runCase(KNOWN, { store: new KnowsCompletedOnlyStore() })).rejects.toThrow();
  });

  it('a store without group operations fails the group cases, saying what is missing', async () => {
    await expect(runCase(KNOWN, { store: new NoGroupStore() })).rejects.toThrow(
      /Store.known and Store.recordFirst/,
    );
    await expect(runCase(GROUP, { store: new NoGroupStore() })).rejects.toThrow(
      /no group operations/,
    );
  });

  it('a group over a store that records some and not all fails the conflict case', async () => {
    await expect(runCase(CONFLICT, { store: new PartialStore() })).rejects.toThrow();
  });

  it('the real InMemoryStore passes every one of these cases', async () => {
    for (const testCase of [
      ALL_OR_NOTHING,
      RACING,
      FINAL,
      HANDLER_TIME,
      KNOWN,
      GROUP,
      CONFLICT,
      TWICE,
    ])
      await expect(runCase(testCase, { store: new InMemoryStore() })).resolves.toBeUndefined();
  });
});
