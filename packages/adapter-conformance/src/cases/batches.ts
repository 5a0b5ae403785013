/**
 * @module Batched deliveries through every adapter (docs/providers.md#batched-deliveries): each
 * batched preset's genuine batch, its redelivery, a re-batch and a forged copy; an item held by
 * another worker, an item that throws; Meta's and Okta's verification GETs.
 */
import { expectReplay, handshakeCase } from './expect';
import type { ProviderPreset } from '@webhook-idempotency/core';
import type { AdapterCase } from '../case';
import { type Harness, PROVIDER } from '../harness';
import { type BatchFixture, batchFixtures, requestOf } from '../presets';
import type { Answer, HandlerCall } from '../types';
import type { Delivery } from '@webhook-idempotency/providers/testing';

const send = (h: Harness, delivery: Delivery) => {
  const { body, headers, path } = requestOf(delivery);
  return h.post(undefined, body, { ...headers }, path);
};

/**
 * The route handler a batch needs: each item through `batch.each` (noting the item keys run), then
 * `answer`. `answered`, when given, is set to each item of the last batch with what `each` did with
 * it (`id run`, `id replay`, or the refusal's code), in the request's order.
 */
function booking(
  ran: string[],
  answer: Answer,
  fail?: (id: string) => boolean,
  answered?: string[],
) {
  return async (call: HandlerCall): Promise<Answer> => {
    const batch = call.idempotency?.batch;
    if (!batch) throw new Error('no batch on the request context');
    const outcomes = await batch.each((_item, context) => {
      const id = context.key.externalId;
      if (fail?.(id)) throw new Error(`the ledger refused ${id}`);
      ran.push(id);
    });
    answered?.splice(
      0,
      answered.length,
      ...outcomes.map((outcome, i) => {
        const done = outcome.refused ? outcome.refused.code : outcome.isReplay ? 'replay' : 'run';
        return `${batch.items[i]?.key.externalId} ${done}`;
      }),
    );
    return answer;
  };
}

function batchCase(fixture: BatchFixture): AdapterCase {
  return {
    group: 'batches',
    anyStore: true,
    name: `${fixture.name}: a forged batch is refused with no receipt; each item runs once, the provider's retry is replayed, a re-batch replays its repeated item and runs only its new one`,
    async run(h) {
      const preset = fixture.preset();
      const ran: string[] = [];
      const answered: string[] = [];
      await h.start({ preset }, booking(ran, fixture.answer, undefined, answered));
      const find = (externalId: string) => h.guard.find({ provider: preset.provider, externalId });

      const delivery = fixture.delivery();
      const forged = await send(h, delivery.forged());
      expect(forged.status).toBe(fixture.forgedStatus ?? 401);
      expect(h.calls()).toBe(0);
      for (const id of fixture.itemIds) expect(await find(id)).toBeNull();

      const first = await send(h, delivery);
      expect(first.status).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      if (fixture.answer.kind === 'text') expect(first.body.toString()).toBe(fixture.answer.value);
      expect(ran).toEqual(fixture.itemIds);
      expect(answered).toEqual(fixture.itemIds.map((id) => `${id} run`));
      for (const id of fixture.itemIds)
        expect(await find(id)).toMatchObject({ status: 'completed', attempts: 1 });

      expectReplay(await send(h, delivery.retry()), first);

      const rebatch = await send(h, fixture.rebatched());
      expect(rebatch.status).toBe(200);
      // The provider's retry in another batch: the genuine batch's last item, replayed, then the new one, run.
      expect(answered).toEqual([`${fixture.itemIds.at(-1)} replay`, `${fixture.newItemId} run`]);
      expect(ran).toEqual([...fixture.itemIds, fixture.newItemId]);
      expect(h.calls()).toBe(2);
    },
  };
}

function batchHandshakeCase(fixture: BatchFixture): AdapterCase | undefined {
  const { handshake } = fixture;
  if (!handshake) return undefined;
  const name = `${fixture.name}: the verification GET is answered by the preset when its token matches, refused otherwise, without the handler or a receipt`;
  const query = (url: string) => new URL(url).search.slice(1);
  return handshakeCase('batches', name, fixture.preset, (h) => {
    const request = handshake.request();
    return {
      forged: () => {
        const forged = request.forged();
        return h.get(query(forged.url), forged.headers);
      },
      genuine: () => h.get(query(request.url), request.headers),
      answer: request.answer,
      forgedStatus: handshake.forgedStatus,
      externalId: request.answer,
    };
  });
}

/** A batch of `{ id }` events signed by a header: the engine's part, on every store. */
const plainBatches: ProviderPreset = {
  provider: PROVIDER,
  keyDescription: 'id of each event',
  needsRawBody: true,
  retentionDays: 1,
  key: () => undefined,
  verify: (request) => request.headers['x-batch-signature'] === 'signed',
  items: (request) =>
    (JSON.parse(request.rawBody!.toString()) as { id: string }[]).map((event) => ({
      key: event.id,
      value: event,
    })),
};
/** An event of a plain batch: an id, or an id and content (another `n` is another payload). */
type PlainEvent = string | { readonly id: string; readonly n?: number };
const plain = (h: Harness, events: readonly PlainEvent[]) =>
  h.post(
    undefined,
    JSON.stringify(events.map((event) => (typeof event === 'string' ? { id: event } : event))),
    { 'x-batch-signature': 'signed' },
  );

/** What the handler saw of one batch: the batch's own key and each item's outcome, summarised. */
interface Seen {
  key?: string;
  outcomes?: readonly string[];
  /** Which outcomes are the very object of an earlier one (a repeated id sharing its outcome). */
  shared?: readonly number[];
}

/** Starts the app on the plain batches, noting what runs and each item's outcome. */
async function startNoting(h: Harness): Promise<{ ran: string[]; seen: Seen }> {
  const ran: string[] = [];
  const seen: Seen = {};
  await h.start({ preset: plainBatches }, noting(ran, seen));
  return { ran, seen };
}

/** `batch.each` noting the items run and what it resolved with: `run`, `replay` or the refusal's code. */
function noting(ran: string[], seen: Seen) {
  return async (call: HandlerCall): Promise<Answer> => {
    const idempotency = call.idempotency;
    const batch = idempotency?.batch;
    if (!batch) throw new Error('no batch on the request context');
    seen.key = idempotency.key.externalId;
    const outcomes = await batch.each((_item, context) => {
      ran.push(context.key.externalId);
      return { booked: context.key.externalId };
    });
    seen.outcomes = outcomes.map((outcome) =>
      outcome.refused ? outcome.refused.code : outcome.isReplay ? 'replay' : 'run',
    );
    seen.shared = outcomes.flatMap((outcome, index) =>
      outcomes.indexOf(outcome) < index ? [index] : [],
    );
    return { kind: 'json', value: { ok: true } };
  };
}

const MISMATCH = 'ERR_IDEMPOTENCY_FINGERPRINT_MISMATCH';

export const batchCases: AdapterCase[] = [
  ...batchFixtures.flatMap((fixture) => {
    const handshake = batchHandshakeCase(fixture);
    return handshake ? [batchCase(fixture), handshake] : [batchCase(fixture)];
  }),
  {
    group: 'batches',
    name: 'an item another worker holds answers the batch 409 with Retry-After; an item that throws fails it after the items before it; the retry runs only the rest',
    async run(h) {
      const ran: string[] = [];
      let failing = true;
      await h.start(
        { preset: plainBatches },
        booking(ran, { kind: 'json', value: { ok: true } }, (id) => failing && id === 'b3'),
      );
      const held = await h.guard.claim({ provider: PROVIDER, externalId: 'b2' });

      const blocked = await plain(h, ['b1', 'b2', 'b3']);
      expect([blocked.status, Number(blocked.headers['retry-after']) > 0]).toEqual([409, true]);
      expect(JSON.parse(blocked.body.toString())).toMatchObject({
        code: 'ERR_IDEMPOTENCY_IN_PROGRESS',
      });
      expect(ran).toEqual(['b1']);

      if (held.isReplay) throw new Error('expected to hold b2');
      await held.complete({ elsewhere: true });
      const failed = await plain(h, ['b1', 'b2', 'b3', 'b4']);
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(await h.receipt('b3')).toMatchObject({ status: 'failed' });
      expect(await h.receipt('b4')).toBeNull();

      failing = false;
      expect((await plain(h, ['b1', 'b2', 'b3', 'b4'])).status).toBe(200);
      expect(ran).toEqual(['b1', 'b3', 'b4']);
    },
  },
  {
    group: 'batches',
    name: 'an item refused for another payload under its id does not stop the batch: the items after it run, the batch answers 422 at the end and its receipt stays failed; a redelivery replays the done items and refuses only that one',
    async run(h) {
      const { ran, seen } = await startNoting(h);
      expect((await plain(h, [{ id: 'r1', n: 1 }])).status).toBe(200);

      const batch = ['r0', { id: 'r1', n: 2 }, 'r2', 'r3'];
      const refused = await plain(h, batch);
      expect(refused.status).toBe(422);
      const answer = JSON.parse(refused.body.toString()) as { code: string; message: string };
      expect(answer.code).toBe(MISMATCH);
      expect(answer.message).toContain(`${PROVIDER}/r1`);
      expect(ran).toEqual(['r1', 'r0', 'r2', 'r3']);
      expect(seen.outcomes).toEqual(['run', MISMATCH, 'run', 'run']);
      for (const id of ['r0', 'r2', 'r3'])
        expect(await h.receipt(id)).toMatchObject({ status: 'completed', attempts: 1 });
      expect(await h.receipt('r1')).toMatchObject({ status: 'completed', attempts: 1 });
      const own = await h.receipt(seen.key!);
      expect(own).toMatchObject({ status: 'failed' });
      expect(own?.error).toContain(`${PROVIDER}/r1`);

      // Every redelivery replays the done items and refuses only the bad one: nothing runs twice.
      for (let round = 0; round < 3; round++) {
        const again = await plain(h, batch);
        expect(again.status).toBe(422);
        expect(seen.outcomes).toEqual(['replay', MISMATCH, 'replay', 'replay']);
      }
      expect(ran).toEqual(['r1', 'r0', 'r2', 'r3']);
      expect(await h.receipt('r3')).toMatchObject({ status: 'completed', attempts: 1 });
    },
  },
  {
    group: 'batches',
    name: "a repeated id in one batch runs once: an identical repeat shares the first one's outcome, one with another payload is refused alone (422 at the end)",
    async run(h) {
      const { ran, seen } = await startNoting(h);

      expect((await plain(h, ['e1', 'e2', 'e1'])).status).toBe(200);
      expect(ran).toEqual(['e1', 'e2']);
      expect([seen.outcomes, seen.shared]).toEqual([['run', 'run', 'run'], [2]]);
      expect(await h.receipt('e1')).toMatchObject({ status: 'completed', attempts: 1 });

      const batch = ['d1', { id: 'd2', n: 1 }, 'd1', { id: 'd2', n: 2 }, 'd3'];
      const refused = await plain(h, batch);
      expect(refused.status).toBe(422);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ code: MISMATCH });
      expect(ran).toEqual(['e1', 'e2', 'd1', 'd2', 'd3']);
      expect(seen.outcomes).toEqual(['run', 'run', 'run', MISMATCH, 'run']);
      expect(seen.shared).toEqual([2]);
      expect(await h.receipt('d2')).toMatchObject({ status: 'completed', attempts: 1 });

      expect((await plain(h, batch)).status).toBe(422);
      expect(seen.outcomes).toEqual(['replay', 'replay', 'replay', MISMATCH, 'replay']);
      expect(ran).toEqual(['e1', 'e2', 'd1', 'd2', 'd3']);
    },
  },
  {
    group: 'batches',
    name: 'a held item still stops the batch at once (409), also after a refused one: the retry then runs the rest and answers the refusal',
    async run(h) {
      const { ran, seen } = await startNoting(h);
      expect((await plain(h, [{ id: 's1', n: 1 }])).status).toBe(200);
      const held = await h.guard.claim({ provider: PROVIDER, externalId: 's2' });

      const batch = [{ id: 's1', n: 2 }, 's2', 's3'];
      const blocked = await plain(h, batch);
      expect([blocked.status, Number(blocked.headers['retry-after']) > 0]).toEqual([409, true]);
      expect(ran).toEqual(['s1']);
      expect(await h.receipt('s3')).toBeNull();

      if (held.isReplay) throw new Error('expected to hold s2');
      await held.complete({ elsewhere: true });
      expect((await plain(h, batch)).status).toBe(422);
      expect(ran).toEqual(['s1', 's3']);
      expect(seen.outcomes).toEqual([MISMATCH, 'replay', 'run']);
    },
  },
];
