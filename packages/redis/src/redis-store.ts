/** @module RedisStore: the Store contract over Redis, one fenced server-side script per operation. */
import { randomBytes } from 'node:crypto';
import type * as core from '@webhook-idempotency/core';
import { purgeChunkSize } from '@webhook-idempotency/core/adapter';
import type {
  ClaimInput,
  CompleteInput,
  FailInput,
  FirstRun,
  PurgeInput,
  ReclaimInput,
} from '@webhook-idempotency/core/adapter';
import { bounded, evalOnKeys, evalScript } from './commands';
import { type Commander, commanderFor, type RedisClient } from './connection';
import { receiptKey } from './keys';
import { type RedisStoreOptions, type ResolvedRedisOptions, resolveRedisOptions } from './options';
import { purgeReceipts } from './purge';
import { readReceipt, UnexpectedReply } from './receipt';
import { type Script, SCRIPTS } from './scripts';

/** NUL and lone surrogates: replaced as the SQL stores replace them, so every store keeps the same text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is matched on purpose, to be replaced before storing.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A fresh nonce per call: a command the client resends after a lost reply answers as it first did. */
const nonce = (): string => randomBytes(12).toString('base64url');

/** The fingerprint of a claim as the claim script takes it: given, then the value. */
const fingerprintArgs = (fingerprint: string | null): [string, string] =>
  fingerprint === null ? ['0', ''] : ['1', fingerprint];

/**
 * Receipts in Redis: one hash per delivery, every operation one Lua script that Redis runs
 * atomically, every timestamp the server's `TIME`, so that app servers with skewed clocks agree
 * on staleness. Shared by every process and machine that reaches the same Redis; **not
 * transactional** with your SQL data: the handler's writes and the receipt commit separately, so
 * a crash between the two runs the handler again (make its writes idempotent, or use an outbox).
 *
 * `client` is the client the application already has: an ioredis `Redis` or `Cluster`, or a
 * connected node-redis client or cluster; the store never connects, configures or closes it.
 * Finished receipts expire after `retentionSeconds` when it is given; `purge()` deletes them by
 * SCAN, batch by batch, never blocking the server.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL); // ioredis
 * const guard = new IdempotencyGuard(new RedisStore(redis, { retentionSeconds: 7 * 86_400 }));
 * @see packages/redis/README.md
 */
export class RedisStore implements core.Store {
  /** Shared by processes and machines, not transactional, timed by the Redis server's clock. */
  readonly capabilities: core.StoreCapabilities = {
    crossProcess: true,
    transactional: false,
    clock: 'store',
    // Not yet: a route set's ignored events are counted in its OpenTelemetry metrics and guard
    // events only, not in this store (the CLI and the dashboard read SQL and in-memory stores).
    ignoredCounts: false,
  };
  /** The prefix of every receipt key. */
  readonly prefix: string;
  private readonly commander: Commander;
  private readonly options: ResolvedRedisOptions;

  /**
   * @throws {ConfigError} naming `client` when it is no supported Redis client, or the option
   * that is wrong.
   */
  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    this.options = resolveRedisOptions(options);
    this.commander = commanderFor(client);
    this.prefix = this.options.prefix;
  }

  /** One script: creates the `processing` receipt unless the key has one, and answers the receipt. */
  async claim(key: core.KeyLike, { fingerprint }: ClaimInput): Promise<core.ClaimResult> {
    const read = readReceipt(
      key,
      await this.run('claim', SCRIPTS.claim, key, [...fingerprintArgs(fingerprint), nonce()]),
    );
    if (!read) throw new UnexpectedReply(key, 'no receipt after a claim');
    return read.flag ? { won: true, receipt: read.receipt } : { won: false, receipt: read.receipt };
  }

  /** One script, fenced by `attempts`; staleness judged by the Redis clock. */
  async reclaim(
    key: core.KeyLike,
    { attempts, staleAfterMs, fingerprint }: ReclaimInput,
  ): Promise<core.ObservedReceipt | null> {
    const mode = fingerprint === undefined ? ['-', ''] : fingerprintArgs(fingerprint);
    const reply = await this.run('reclaim', SCRIPTS.reclaim, key, [
      String(attempts),
      String(Math.max(0, Math.ceil(staleAfterMs))),
      ...mode,
      nonce(),
    ]);
    return readReceipt(key, reply)?.receipt ?? null;
  }

  /**
   * One script, fenced by `attempts` and, when given, `claimedAt` (to the millisecond). Sets the
   * expiry when `retentionSeconds` is given. Never part of a transaction: the store has none.
   */
  complete(key: core.KeyLike, { attempts, claimedAt, response }: CompleteInput): Promise<boolean> {
    return this.settle('complete', SCRIPTS.complete, key, attempts, claimedAt, response);
  }

  /**
   * One script, fenced like {@link RedisStore.complete}. The error text is stored with U+FFFD in
   * place of NUL and of lone surrogates, as the SQL stores store it.
   */
  fail(key: core.KeyLike, { attempts, claimedAt, error }: FailInput): Promise<boolean> {
    const text = error.replace(UNSTORABLE, '\uFFFD');
    return this.settle('fail', SCRIPTS.fail, key, attempts, claimedAt, text);
  }

  /** Reads the receipt with the server's "now" in the same script. */
  async find(key: core.KeyLike, _at: core.At): Promise<core.ObservedReceipt | null> {
    return readReceipt(key, await this.run('find', SCRIPTS.find, key, []))?.receipt ?? null;
  }

  /**
   * Deletes finished receipts (of `provider`, when given) finished at least `olderThanMs` ago,
   * never a `processing` one: SCAN (`chunkSize` keys a step, default 1000) over every node, and one
   * short script per key found, so the server is never blocked for long. Never `KEYS`.
   */
  async purge(input: PurgeInput): Promise<number> {
    const { olderThanMs, provider } = input;
    const olderThan = String(Math.max(0, Math.floor(olderThanMs)));
    return purgeReceipts(this.commander, {
      prefix: this.prefix,
      provider,
      chunkSize: purgeChunkSize(input),
      timeoutMs: this.options.commandTimeoutMs,
      purgeOne: (redisKey, signal) =>
        evalScript(this.commander, SCRIPTS.purgeOne, redisKey, [olderThan], signal),
    });
  }

  /**
   * Which of `keys` have a receipt: one `EXISTS` per key, all sent at once, each routed to its own
   * node on a cluster. Bounded by `commandTimeoutMs`.
   */
  known(keys: readonly core.KeyLike[], _at: core.At): Promise<boolean[]> {
    return Promise.all(
      keys.map(async (key) => {
        const redisKey = receiptKey(this.prefix, key);
        const reply = await bounded('known', this.options.commandTimeoutMs, (signal) =>
          this.commander.send(redisKey, ['EXISTS', redisKey], signal),
        );
        return Number(reply) === 1;
      }),
    );
  }

  /**
   * One script over every entry's key: `completed` receipts for all of them when none exists (and
   * none is named twice), else nothing; every timestamp the server's `TIME`, the expiry set when
   * `retentionSeconds` is given. On a Redis Cluster the keys of one call must share a hash slot
   * (Redis refuses the script otherwise, and nothing is written). Never part of a transaction: the
   * store has none.
   */
  async recordFirst(entries: readonly FirstRun[], _at: core.At): Promise<boolean> {
    if (entries.length === 0) return true;
    const keys = entries.map(({ key }) => receiptKey(this.prefix, key)) as [string, ...string[]];
    const argv = [
      this.options.retentionMs,
      nonce(),
      ...entries.flatMap(({ response, handlerMs }) => [
        response,
        String(Number.isFinite(handlerMs) ? Math.max(0, Math.round(handlerMs)) : 0),
      ]),
    ];
    const reply = await bounded('recordFirst', this.options.commandTimeoutMs, (signal) =>
      evalOnKeys(this.commander, SCRIPTS.recordFirst, keys, argv, signal),
    );
    return Number(reply) === 1;
  }

  private async settle(
    operation: 'complete' | 'fail',
    script: Script,
    key: core.KeyLike,
    attempts: number,
    claimedAt: Date | undefined,
    value: string,
  ): Promise<boolean> {
    const reply = await this.run(operation, script, key, [
      String(attempts),
      claimedAt === undefined ? '' : String(claimedAt.getTime()),
      value,
      this.options.retentionMs,
      nonce(),
    ]);
    return Number(reply) === 1;
  }

  /** Runs `script` on the receipt of `key`, bounded by `commandTimeoutMs`. */
  private run(
    operation: string,
    script: Script,
    key: core.KeyLike,
    argv: readonly string[],
  ): Promise<unknown> {
    const redisKey = receiptKey(this.prefix, key);
    return bounded(operation, this.options.commandTimeoutMs, (signal) =>
      evalScript(this.commander, script, redisKey, argv, signal),
    );
  }
}
