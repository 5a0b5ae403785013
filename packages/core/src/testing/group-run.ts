/**
 * @module Conformance cases: a group of first runs as the guard runs it (the inbox worker's
 * groups), over the store's group operations: in one transaction of a transactional store, without
 * one otherwise. What a conflict or a failure leaves depends only on `capabilities.transactional`.
 */
import { IdempotencyGuard } from '../guard';
import type { KeyLike } from '../request-key';
import { GroupConflict, type GroupMembers } from '../receipt-group';
import type { GuardEvent, RunContext, Store } from '../types';
import { expectReceipt } from './fixtures';
import { firstRun, groupOperations } from './group';
import type { CaseContext, ConformanceCase } from './types';

/**
 * A guard over the case's store and clock, the events it reports, and `groupWritingAside`: a group
 * of `keys` whose first member records `aside` completed with `response` as another run would (in
 * the group's transaction where there is one: the same connection has no other way in), then does
 * `rest`.
 */
function guardOf({ store, now }: CaseContext<unknown>) {
  const events: GuardEvent[] = [];
  const guard = new IdempotencyGuard(store as Store<unknown>, {
    clock: now,
    onEvent: (event) => void events.push(event),
  });
  const { recordFirst } = groupOperations(store);
  const groupWritingAside = (
    keys: readonly KeyLike[],
    aside: { readonly key: KeyLike; readonly response: string },
    rest: (members: GroupMembers<unknown>) => Promise<unknown>,
  ) =>
    guard.group(keys, async (members) => {
      await members.run(0, ({ transaction }) =>
        recordFirst([firstRun(aside.key, aside.response)], { now: now() }, transaction),
      );
      await rest(members);
    });
  return { guard, events, groupWritingAside };
}

/**
 * After a group that wrote `aside` failed: nothing recorded of `member`'s own, and `aside` kept only
 * by a store without transactions (a transactional one rolled it back with the group).
 */
async function expectGroupUndone(
  { store, now }: CaseContext<unknown>,
  member: KeyLike,
  aside: { readonly key: KeyLike; readonly response: string },
): Promise<void> {
  expect(await store.find(member, { now: now() })).toBeNull();
  const found = await store.find(aside.key, { now: now() });
  if (store.capabilities.transactional) expect(found).toBeNull();
  else expect(found).toMatchObject({ status: 'completed', response: aside.response });
}

export const groupRunCases: ConformanceCase[] = [
  {
    group: 'group',
    name: 'a group runs the keys without a receipt, records them completed, and leaves known keys out',
    async run(context) {
      const { store, now, key } = context;
      const { guard, events } = guardOf(context);
      const [done, a, b] = [key('done'), key('a'), key('b')];
      await store.claim(done, { now: now(), fingerprint: null });
      await store.complete(done, { now: now(), attempts: 1, response: '"before"' });
      const contexts: RunContext<unknown>[] = [];
      const result = await guard.group(
        [done, a, b],
        async (members) => {
          expect(members.known).toEqual([true, false, false]);
          await expect(members.run(0, () => 'no')).rejects.toMatchObject({ option: 'index' });
          for (const index of [2, 1])
            await members.run(index, (ctx) => {
              contexts.push(ctx);
              return { index };
            });
        },
        { beforeCommit: async (_transaction, ran) => ran.length },
      );
      expect(result).toEqual({ ran: [2, 1], written: 2 });
      expect(
        contexts.map(({ key: k, attempts, isRetry }) => [k.externalId, attempts, isRetry]),
      ).toEqual([
        [b.externalId, 1, false],
        [a.externalId, 1, false],
      ]);
      // A grouped run's effect keys are the ones any other run of its delivery gets.
      expect(contexts.map((ctx) => ctx.effectKey('refund'))).toEqual([
        guard.effectKey(b, 'refund'),
        guard.effectKey(a, 'refund'),
      ]);
      expect(await store.find(a, { now: now() })).toMatchObject({
        status: 'completed',
        attempts: 1,
        response: '{"index":1}',
      });
      await expectReceipt(store, now, done, { response: '"before"' });
      const delivered = events.filter((e) => e.type === 'delivered');
      expect(delivered.map((e) => [e.key.externalId, e.type === 'delivered' && e.outcome])).toEqual(
        [
          [b.externalId, 'first'],
          [a.externalId, 'first'],
        ],
      );
    },
  },
  {
    group: 'group',
    name: 'a group whose key got a receipt meanwhile records nothing of its own (GroupConflict)',
    async run(context) {
      const { groupWritingAside } = guardOf(context);
      const [a, b] = [context.key('a'), context.key('b')];
      // Another run writes b's receipt while the group runs.
      const aside = { key: b, response: '"other"' };
      const group = groupWritingAside([a, b], aside, (members) => members.run(1, () => 'mine'));
      await expect(group).rejects.toBeInstanceOf(GroupConflict);
      await expectGroupUndone(context, a, aside);
    },
  },
  {
    group: 'group',
    name: 'a group whose work throws records nothing; a transactional store rolls back what the handlers wrote',
    async run(context) {
      const { groupWritingAside } = guardOf(context);
      const a = context.key('a');
      const aside = { key: context.key('written'), response: '"business"' };
      const boom = new Error('a later handler failed');
      const group = groupWritingAside([a], aside, async () => {
        throw boom;
      });
      await expect(group).rejects.toBe(boom);
      await expectGroupUndone(context, a, aside);
    },
  },
];

export const groupTransactionCases: ConformanceCase[] = [
  {
    group: 'transaction',
    name: 'known and recordFirst inside a transaction: committed they record, rolled back they leave nothing',
    async run({ store, now, key }) {
      const { known, recordFirst } = groupOperations(store);
      const [kept, lost] = [key('kept'), key('lost')];
      await store.withTransaction!(async (tx) => {
        expect(await known([kept], { now: now() }, tx)).toEqual([false]);
        expect(await recordFirst([firstRun(kept)], { now: now() }, tx)).toBe(true);
        expect(await known([kept], { now: now() }, tx)).toEqual([true]);
      });
      const boom = new Error('rolled back');
      await expect(
        store.withTransaction!(async (tx) => {
          expect(await recordFirst([firstRun(lost)], { now: now() }, tx)).toBe(true);
          throw boom;
        }),
      ).rejects.toBe(boom);
      await expectReceipt(store, now, kept, { status: 'completed' });
      expect(await store.find(lost, { now: now() })).toBeNull();
    },
  },
  {
    group: 'transaction',
    name: 'a refused recordFirst inside a transaction leaves nothing of it there, and the transaction usable',
    async run({ store, now, key }) {
      const { recordFirst } = groupOperations(store);
      const [held, fresh, claimed] = [key('held'), key('fresh'), key('claimed')];
      await store.claim(held, { now: now(), fingerprint: null });
      await store.claim(claimed, { now: now(), fingerprint: null });
      await store.withTransaction!(async (tx) => {
        const entries = [firstRun(fresh), firstRun(held)];
        expect(await recordFirst(entries, { now: now() }, tx)).toBe(false);
        const input = { now: now(), attempts: 1, response: '"in-tx"' };
        expect(await store.complete(claimed, input, tx)).toBe(true);
      });
      expect(await store.find(fresh, { now: now() })).toBeNull();
      await expectReceipt(store, now, held, { status: 'processing' });
      await expectReceipt(store, now, claimed, { status: 'completed' });
    },
  },
];
