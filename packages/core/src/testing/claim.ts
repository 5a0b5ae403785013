/** @module Conformance cases: claiming a key and reading receipts. */
import { expectReceipt } from './fixtures';
import type { CaseContext, ConformanceCase } from './types';

/** A claim now, with `fingerprint`, of a key no other case uses (named by `label`): the key and what the claim found. */
async function freshClaim(
  { store, now, key }: CaseContext<unknown>,
  label: string,
  fingerprint: string | null,
) {
  const k = key(label);
  return { k, result: await store.claim(k, { now: now(), fingerprint }) };
}

export const claimCases: ConformanceCase[] = [
  {
    group: 'claim',
    name: 'the first claim wins and stores a processing receipt with attempts 1',
    async run(context) {
      const { k, result } = await freshClaim(context, 'first', 'fp-1');
      expect(result.won).toBe(true);
      expect(result.receipt).toMatchObject({
        provider: k.provider,
        externalId: k.externalId,
        status: 'processing',
        attempts: 1,
        response: null,
        error: null,
        fingerprint: 'fp-1',
        finishedAt: null,
      });
      expect(result.receipt.claimedAt).toBeInstanceOf(Date);
      expect(result.receipt.claimAgeMs).toBeGreaterThanOrEqual(0);
      expect(result.receipt.claimAgeMs).toBeLessThan(5_000);
      await expectReceipt(context.store, context.now, k, {
        status: 'processing',
        attempts: 1,
        fingerprint: 'fp-1',
      });
    },
  },
  {
    group: 'claim',
    name: 'a second claim loses and sees the existing receipt unchanged',
    async run(context) {
      const { store, now } = context;
      const { k } = await freshClaim(context, 'second', 'fp-a');
      const again = await store.claim(k, { now: now(), fingerprint: 'fp-b' });
      expect(again.won).toBe(false);
      expect(again.receipt).toMatchObject({
        status: 'processing',
        attempts: 1,
        fingerprint: 'fp-a',
      });
    },
  },
  {
    group: 'claim',
    name: 'a claim without a fingerprint stores null',
    async run(context) {
      const { result } = await freshClaim(context, 'nofp', null);
      expect(result.receipt.fingerprint).toBeNull();
    },
  },
  {
    group: 'claim',
    name: 'the same external id at two providers is two independent receipts',
    async run({ store, now, key }) {
      const a = key('shared', 'provider-a');
      const b = { provider: 'provider-b', externalId: a.externalId };
      expect((await store.claim(a, { now: now(), fingerprint: null })).won).toBe(true);
      expect((await store.claim(b, { now: now(), fingerprint: null })).won).toBe(true);
      expect(await store.complete(a, { now: now(), attempts: 1, response: '"a"' })).toBe(true);
      await expectReceipt(store, now, b, { status: 'processing', response: null });
    },
  },
  {
    group: 'claim',
    name: 'keys are compared exactly: case, trailing spaces and separators matter',
    async run({ store, now, key }) {
      const base = key('Case');
      const variants = [
        base,
        { provider: base.provider, externalId: base.externalId.toLowerCase() },
        { provider: base.provider, externalId: `${base.externalId} ` },
        { provider: `${base.provider}:x`, externalId: base.externalId },
        { provider: base.provider, externalId: `x:${base.externalId}` },
      ];
      for (const variant of variants) {
        expect((await store.claim(variant, { now: now(), fingerprint: null })).won).toBe(true);
      }
    },
  },
  {
    group: 'claim',
    name: 'a key at the length limit with 4-byte characters round-trips exactly',
    async run({ store, now, key }) {
      const unique = key('long').externalId;
      // 160 code points, most of them 4 bytes in UTF-8 (640 bytes at most).
      const externalId = (unique + '😀'.repeat(160)).slice(
        0,
        unique.length + 2 * (160 - unique.length),
      );
      expect([...externalId].length).toBe(160);
      const provider = 'p'.repeat(150) + '𝄞'.repeat(10);
      expect(
        (await store.claim({ provider, externalId }, { now: now(), fingerprint: null })).won,
      ).toBe(true);
      const found = await store.find({ provider, externalId }, { now: now() });
      expect(found?.externalId).toBe(externalId);
      expect(found?.provider).toBe(provider);
      expect(
        (await store.claim({ provider, externalId }, { now: now(), fingerprint: null })).won,
      ).toBe(false);
    },
  },
  {
    group: 'claim',
    name: 'find returns null for an unknown key and claims nothing',
    async run({ store, now, key }) {
      const k = key('unknown');
      expect(await store.find(k, { now: now() })).toBeNull();
      expect(await store.find(k, { now: now() })).toBeNull();
      expect((await store.claim(k, { now: now(), fingerprint: null })).won).toBe(true);
    },
  },
];
