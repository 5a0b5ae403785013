/**
 * Store-specific cases every connection kind runs through the real IdempotencyGuard:
 * transactional completion with a business write made through the typed handle the driver gives,
 * rollback of that write, concurrent transactions, and Unicode responses stored verbatim.
 */
import { IdempotencyGuard, type Codec } from '@webhook-idempotency/core';
import { Schema, SqlStore, type SqlConnection, type TransactionOf } from '../../src';
import { createExecutor } from '../../src/connections/detect';

/** Stores the handler's string as is, so the column itself must be binary-safe for text. */
const verbatim: Codec<string> = { encode: (text) => text, decode: (text) => text };

/** Every code point but U+0000 (PostgreSQL text cannot hold it) and lone surrogates (not UTF-8). */
function everyCharacter(): string {
  const parts: string[] = [];
  for (let cp = 1; cp < 0x110000; cp += cp < 0x10000 ? 1 : 97) {
    if (cp < 0xd800 || cp > 0xdfff) parts.push(String.fromCodePoint(cp));
  }
  return parts.join('');
}

/**
 * Registers the cases. `insertOrder` writes one row of `orders` through the transaction handle;
 * its parameter is typed by `TransactionOf<Db>`, so each test file also checks that typing.
 */
export function guardCases<Db extends SqlConnection>(
  db: () => Db,
  insertOrder: (transaction: TransactionOf<Db>, id: string) => Promise<unknown>,
): void {
  const table = 'receipts_guard';
  let run = 0;
  const orders = async (prefix: string) => {
    const { rows } = await createExecutor(db(), 10_000).query(
      'SELECT COUNT(*) AS n FROM orders WHERE id LIKE ?',
      [`${prefix}%`],
    );
    return Number(rows[0]!.n);
  };

  describe('through IdempotencyGuard', () => {
    let prefix: string;
    beforeAll(async () => {
      await Schema.createTable(db(), { table });
      await createExecutor(db(), 10_000).query(
        'CREATE TABLE orders (id VARCHAR(100) NOT NULL PRIMARY KEY)',
        [],
      );
    });
    beforeEach(() => {
      prefix = `r${++run}-`;
    });
    const guard = () =>
      new IdempotencyGuard(new SqlStore(db(), { table }), { transactional: true });

    it('transactional mode commits the business write and `completed` together; a duplicate is replayed', async () => {
      const key = { provider: 'tx', externalId: `${prefix}1` };
      const handler = jest.fn(
        async ({ transaction }: { transaction: TransactionOf<Db> | undefined }) => {
          await insertOrder(transaction!, `${prefix}1`);
          return { ok: true };
        },
      );
      expect(await guard().run(key, handler)).toEqual({
        response: { ok: true },
        isReplay: false,
        attempts: 1,
      });
      expect(await guard().run(key, handler)).toEqual({
        response: { ok: true },
        isReplay: true,
        attempts: 1,
      });
      expect(handler).toHaveBeenCalledTimes(1);
      expect(await orders(prefix)).toBe(1);
    });

    it('a handler that throws after its write leaves no row; the retry runs once and commits', async () => {
      const key = { provider: 'tx', externalId: `${prefix}2` };
      const boom = new Error('payment provider said no');
      await expect(
        guard().run(key, async ({ transaction }) => {
          await insertOrder(transaction!, `${prefix}2`);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await orders(prefix)).toBe(0);
      const outcome = await guard().run(key, async ({ transaction }) => {
        await insertOrder(transaction!, `${prefix}2`);
        return 'second time lucky';
      });
      expect(outcome).toEqual({ response: 'second time lucky', isReplay: false, attempts: 2 });
      expect(await orders(prefix)).toBe(1);
    });

    it('claim().begin(): the business write and `completed` commit together; a duplicate is replayed', async () => {
      const key = { provider: 'tx', externalId: `${prefix}b1` };
      const claim = await guard().claim(key);
      if (claim.isReplay) throw new Error('expected a ticket');
      const open = await claim.begin();
      expect(open.context).toMatchObject({ attempts: 1, isRetry: false });
      await insertOrder(open.context.transaction as TransactionOf<Db>, `${prefix}b1`);
      await open.commit({ booked: true });
      expect(await orders(prefix)).toBe(1);
      expect(await guard().claim(key)).toEqual({
        response: { booked: true },
        isReplay: true,
        attempts: 1,
      });
      await expect(open.commit({ booked: 'twice' })).rejects.toThrow(/ended once/);
    });

    it('claim().begin(): rollback() undoes the write and marks the receipt failed for a retry', async () => {
      const key = { provider: 'tx', externalId: `${prefix}b2` };
      const claim = await guard().claim(key);
      if (claim.isReplay) throw new Error('expected a ticket');
      const open = await claim.begin();
      await insertOrder(open.context.transaction as TransactionOf<Db>, `${prefix}b2`);
      await open.rollback(new Error('card declined'));
      expect(await orders(prefix)).toBe(0);
      expect(await guard().find(key)).toMatchObject({
        status: 'failed',
        error: 'Error: card declined',
      });
      const retry = await guard().claim(key);
      expect(retry).toMatchObject({ isReplay: false, context: { attempts: 2, isRetry: true } });
    });

    it('claim().begin(): the handler deadline ends the transaction, tells onEnded and refuses a late commit', async () => {
      const key = { provider: 'tx', externalId: `${prefix}b3` };
      const bounded = new IdempotencyGuard(new SqlStore(db(), { table }), {
        transactional: true,
        handlerTimeoutSeconds: 0.3,
      });
      const claim = await bounded.claim(key);
      if (claim.isReplay) throw new Error('expected a ticket');
      const open = await claim.begin();
      await insertOrder(open.context.transaction as TransactionOf<Db>, `${prefix}b3`);
      const ended = await new Promise<unknown>((resolve) => open.onEnded(resolve));
      expect(ended).toMatchObject({ code: 'ERR_IDEMPOTENCY_HANDLER_TIMEOUT' });
      expect(await bounded.find(key)).toMatchObject({ status: 'failed' });
      await expect(open.commit({ booked: 'late' })).rejects.toMatchObject({
        code: 'ERR_IDEMPOTENCY_HANDLER_TIMEOUT',
      });
      expect(await orders(prefix)).toBe(0);
    });

    it('concurrent transactional runs on 20 keys each commit exactly their own write', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `${prefix}c${i}`);
      const outcomes = await Promise.all(
        ids.map((id) =>
          guard().run({ provider: 'tx', externalId: id }, async ({ transaction }) => {
            await insertOrder(transaction!, id);
            return id;
          }),
        ),
      );
      expect(outcomes.map((o) => o.response)).toEqual(ids);
      expect(await orders(`${prefix}c`)).toBe(20);
    });

    it('a key of 160 four-byte characters in both parts (640 UTF-8 bytes each) is claimed and replayed', async () => {
      const key = {
        provider: '𝄞'.repeat(160),
        externalId: `${prefix}${'😀'.repeat(160 - prefix.length)}`,
      };
      const handler = jest.fn(async () => 'long');
      expect(await guard().run(key, handler)).toMatchObject({ isReplay: false });
      expect(await guard().run(key, handler)).toMatchObject({ isReplay: true, response: 'long' });
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it("effectKey is the same for a stale claim's takeover by another guard instance and for the retry of a failed run", async () => {
      const key = { provider: 'fx', externalId: `${prefix}e1` };
      const guardOf = () =>
        new IdempotencyGuard(new SqlStore(db(), { table }), {
          staleAfterSeconds: 0.2,
          effectKeyNamespace: 'billing',
        });
      const dead = await guardOf().claim(key); // its process "died" before it settled
      if (dead.isReplay) throw new Error('expected a ticket');
      const before = dead.context.effectKey('refund');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const seen: Array<[string, boolean]> = [];
      const failing = guardOf().run(key, ({ effectKey, isRetry }) => {
        seen.push([effectKey('refund'), isRetry]);
        throw new Error('the refund call timed out');
      });
      await expect(failing).rejects.toThrow('timed out');
      await guardOf().run(key, ({ effectKey, isRetry }) =>
        seen.push([effectKey('refund'), isRetry]),
      );
      expect(seen).toEqual([
        [before, true],
        [before, true],
      ]);
      expect(await guardOf().find(key)).toMatchObject({ status: 'completed', attempts: 3 });
      // What the key is made of: the receipt's key, the name and the guards' namespace.
      expect(before).toBe(guardOf().effectKey(key, 'refund'));
      expect(before).not.toBe(guard().effectKey(key, 'refund'));
    });

    it('a response of every Unicode character is replayed verbatim', async () => {
      const text = everyCharacter();
      const unicode = new IdempotencyGuard<never, string>(new SqlStore(db(), { table }) as never, {
        codec: verbatim,
      });
      const key = { provider: 'unicode', externalId: `${prefix}😀` };
      expect((await unicode.run(key, () => text)).isReplay).toBe(false);
      const replay = await unicode.run(key, () => 'not this');
      expect(replay.isReplay).toBe(true);
      expect(replay.response === text).toBe(true);
    });
  });
}
