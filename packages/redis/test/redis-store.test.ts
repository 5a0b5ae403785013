/**
 * What RedisStore adds to the store contract, on the run's real Redis with both clients: one hash
 * per receipt under the prefix (hash-tagged), retention by key expiry that never touches a
 * `processing` receipt, scripts reloaded when the server forgot them, a command the client runs
 * twice answering as it did the first time, purge by SCAN that stays inside its prefix and
 * provider, and clear errors for what it cannot use.
 */
import { ConfigError, IdempotencyGuard, StoreError } from '@webhook-idempotency/core';
import { RedisStore } from '../src';
import { evalScript } from '../src/commands';
import { commanderFor } from '../src/connection';
import { SCRIPTS } from '../src/scripts';
import { CLIENTS, clear, freshPrefix, keysUnder, type Opened } from './helpers/redis';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const at = () => ({ now: Date.now() });

describe.each(Object.entries(CLIENTS))('RedisStore on %s', (_name, open) => {
  let opened: Opened;
  let prefix: string;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(() => {
    prefix = freshPrefix('store');
  });
  afterEach(() => clear(opened, prefix));

  it('keeps one hash per receipt, at prefix{provider NUL externalId}', async () => {
    const store = new RedisStore(opened.client, { prefix });
    await store.claim({ provider: 'stripe', externalId: 'evt_1' }, { ...at(), fingerprint: 'fp' });
    await store.claim(
      { provider: 'stripe', externalId: 'evt_{2}' },
      { ...at(), fingerprint: null },
    );
    expect((await keysUnder(opened, prefix)).sort()).toEqual([
      `${prefix}{stripe\u0000evt_1}`,
      `${prefix}{stripe\u0000evt_{2}}`,
    ]);
    expect(await opened.command(['TYPE', `${prefix}{stripe\u0000evt_1}`])).toBe('hash');
  });

  it('finished receipts expire after retentionSeconds; a processing one never does, and a take-over clears the expiry', async () => {
    const store = new RedisStore(opened.client, { prefix, retentionSeconds: 60 });
    const pttl = async (externalId: string) =>
      Number(await opened.command(['PTTL', `${prefix}{p\u0000${externalId}}`]));
    const done = { provider: 'p', externalId: 'done' };
    const failed = { provider: 'p', externalId: 'failed' };
    for (const key of [done, failed]) await store.claim(key, { ...at(), fingerprint: null });
    expect(await pttl('done')).toBe(-1);
    expect(await store.complete(done, { ...at(), attempts: 1, response: '1' })).toBe(true);
    expect(await store.fail(failed, { ...at(), attempts: 1, error: 'x' })).toBe(true);
    for (const id of ['done', 'failed']) {
      expect(await pttl(id)).toBeGreaterThan(50_000);
      expect(await pttl(id)).toBeLessThanOrEqual(60_000);
    }
    const taken = await store.reclaim(failed, { ...at(), attempts: 1, staleAfterMs: 1000 });
    expect(taken).toMatchObject({ status: 'processing', attempts: 2 });
    expect(await pttl('failed')).toBe(-1);

    const short = new RedisStore(opened.client, { prefix, retentionSeconds: 0.2 });
    const brief = { provider: 'p', externalId: 'brief' };
    await short.claim(brief, { ...at(), fingerprint: null });
    await short.complete(brief, { ...at(), attempts: 1, response: '1' });
    await sleep(400);
    expect(await short.find(brief, at())).toBeNull();
    expect(await short.find(failed, at())).toMatchObject({ status: 'processing' });
  });

  it('without retentionSeconds, finished receipts stay until purged', async () => {
    const store = new RedisStore(opened.client, { prefix });
    const key = { provider: 'p', externalId: 'kept' };
    await store.claim(key, { ...at(), fingerprint: null });
    await store.complete(key, { ...at(), attempts: 1, response: '1' });
    expect(await opened.command(['PTTL', `${prefix}{p\u0000kept}`])).toBe(-1);
  });

  it('a server that forgot the scripts (SCRIPT FLUSH, a restart) gets them again: EVAL after NOSCRIPT', async () => {
    const store = new RedisStore(opened.client, { prefix });
    const key = { provider: 'p', externalId: 'flushed' };
    await opened.command(['SCRIPT', 'FLUSH']);
    expect((await store.claim(key, { ...at(), fingerprint: null })).won).toBe(true);
    expect(await opened.command(['SCRIPT', 'EXISTS', SCRIPTS.claim.sha])).toEqual([1]);
    await opened.command(['SCRIPT', 'FLUSH']);
    expect(await store.complete(key, { ...at(), attempts: 1, response: '"ok"' })).toBe(true);
  });

  it('a script run twice with one nonce (a resent command) answers as its first run did; another nonce does not', async () => {
    const commander = commanderFor(opened.client);
    const redisKey = `${prefix}{p\u0000resent}`;
    const signal = new AbortController().signal;
    const claim = (nonce: string) =>
      evalScript(commander, SCRIPTS.claim, redisKey, ['0', '', nonce], signal) as Promise<
        unknown[]
      >;
    expect((await claim('n1'))[0]).toBe(1);
    expect((await claim('n1'))[0]).toBe(1);
    expect((await claim('n2'))[0]).toBe(0);
    const [, , , , claimedAt] = await claim('n2');
    const complete = (nonce: string) =>
      evalScript(
        commander,
        SCRIPTS.complete,
        redisKey,
        ['1', String(claimedAt), '"r"', '', nonce],
        signal,
      );
    expect(Number(await complete('w1'))).toBe(1);
    expect(Number(await complete('w1'))).toBe(1);
    expect(Number(await complete('w2'))).toBe(0);
  });

  it('purge stays inside its prefix and provider, glob characters in both taken literally, and skips other keys', async () => {
    const globby = `${prefix}a*[b]?\\:`;
    const other = `${prefix}a`;
    const mine = new RedisStore(opened.client, { prefix: globby });
    const theirs = new RedisStore(opened.client, { prefix: other });
    const finish = async (store: RedisStore, provider: string, externalId: string) => {
      await store.claim({ provider, externalId }, { ...at(), fingerprint: null });
      await store.complete({ provider, externalId }, { ...at(), attempts: 1, response: '1' });
    };
    await finish(mine, 'st*pe', '1');
    await finish(mine, 'st*pe', '2');
    await finish(mine, 'stxpe', '1');
    await finish(theirs, 'st*pe', '1');
    await opened.command(['SET', `${globby}not-a-receipt`, 'x']);
    expect(await mine.purge({ ...at(), olderThanMs: 0, provider: 'st*pe', chunkSize: 1 })).toBe(2);
    expect(await mine.find({ provider: 'stxpe', externalId: '1' }, at())).not.toBeNull();
    expect(await mine.purge({ ...at(), olderThanMs: 0 })).toBe(1);
    expect(await theirs.find({ provider: 'st*pe', externalId: '1' }, at())).not.toBeNull();
    expect(await opened.command(['GET', `${globby}not-a-receipt`])).toBe('x');
  });

  it('a hash under the prefix that is no receipt is a StoreError through the guard, not a wrong answer', async () => {
    const store = new RedisStore(opened.client, { prefix });
    await opened.command(['HSET', `${prefix}{p\u0000junk}`, 's', 'maybe', 'a', '1', 'c', '1']);
    const guard = new IdempotencyGuard(store);
    await expect(guard.run({ provider: 'p', externalId: 'junk' }, () => 'ran')).rejects.toThrow(
      StoreError,
    );
    await expect(guard.find({ provider: 'p', externalId: 'junk' })).rejects.toThrow(
      /unexpected receipt for p\/junk \(status maybe\)/,
    );
  });
});

describe('RedisStore options', () => {
  it('refuses what is not a Redis client, naming client and what was passed', () => {
    for (const client of [null, {}, { query: () => undefined }, 'redis://localhost'])
      expect(() => new RedisStore(client as never)).toThrow(ConfigError);
    expect(() => new RedisStore(new Map() as never)).toThrow(/option "client".*got Map/);
  });

  it('refuses a prefix with braces or control characters, and bad numbers, naming the option', async () => {
    const opened = await CLIENTS.ioredis();
    try {
      const bad: Array<[object, string]> = [
        [{ prefix: '' }, 'prefix'],
        [{ prefix: 'a{b}:' }, 'prefix'],
        [{ prefix: 'a\nb' }, 'prefix'],
        [{ retentionSeconds: 0 }, 'retentionSeconds'],
        [{ retentionSeconds: -1 }, 'retentionSeconds'],
        [{ retentionSeconds: Number.NaN }, 'retentionSeconds'],
        [{ commandTimeoutMs: 0 }, 'commandTimeoutMs'],
        [{ commandTimeoutMs: '5000' }, 'commandTimeoutMs'],
      ];
      for (const [options, option] of bad)
        expect(() => new RedisStore(opened.client, options as never)).toThrow(
          expect.objectContaining({ name: 'ConfigError', option }),
        );
      expect(new RedisStore(opened.client, { retentionSeconds: Infinity }).prefix).toBe(
        'webhook_receipts:',
      );
    } finally {
      await opened.close();
    }
  });
});
