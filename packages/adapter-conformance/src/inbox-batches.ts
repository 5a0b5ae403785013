/**
 * @module The inbox endpoint with each batched preset's requests as the test kit signs them
 * (docs/inbox.md#batched-providers): the forged batch refused with nothing stored, the genuine
 * batch stored as one delivery per item (its body the item's JSON, with the request's headers)
 * and answered as the provider requires, the provider's retry answered as a duplicate, a re-batch
 * storing only its new item, and the preset's handshakes answered with nothing stored.
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import type { InboxResponse } from '@webhook-idempotency/core/inbox';
import { type Delivery, type Sendable, send } from '@webhook-idempotency/providers/testing';
import type { SqlInbox } from '@webhook-idempotency/sql';
import request from 'supertest';
import { type BatchFixture, presetRequestOf } from './presets';
import type { Answer, RunningApp } from './types';

type Server = RunningApp['server'];

/** Sends a request as the kit made it (its method, path, headers and exact bytes). */
const sent = (server: Server, sendable: Sendable) => send.supertest(request(server), sendable);

/** The inbox's `response` option that answers as `answer` (the fixture's, the provider's required answer). */
export function inboxResponseOf(answer: Answer): InboxResponse {
  const type = answer.headers?.['content-type'];
  const contentType = typeof type === 'string' ? type : undefined;
  if (answer.kind === 'json')
    return {
      status: answer.status,
      body: JSON.stringify(answer.value),
      contentType: contentType ?? 'application/json; charset=utf-8',
    };
  if (answer.kind === 'text')
    return {
      status: answer.status,
      body: answer.value,
      contentType: contentType ?? 'text/plain; charset=utf-8',
    };
  throw new TypeError(`a batch fixture's answer is JSON or text, not ${answer.kind}`);
}

/** The stored body each item of `delivery` must have: the JSON of what the preset reads for it, by item id. */
function itemBodies(preset: ProviderPreset, delivery: Delivery): Map<string, string> {
  const items = preset.items?.(presetRequestOf(delivery));
  if (!items) throw new Error(`the ${preset.provider} preset reads no items from its batch`);
  return new Map(items.map((item) => [String(item.key), JSON.stringify(item.value)]));
}

/** The (provider, id) of every stored delivery, sorted. */
async function storedIds(deliveries: SqlInbox): Promise<string[]> {
  return (await deliveries.list()).map((row) => `${row.provider}/${row.externalId}`).sort();
}

/** Sends `fixture`'s forged batch, batch, retry and re-batch to `server`, an inbox endpoint on `deliveries` answering `fixture.answer`. */
export async function expectBatchInbox(
  server: Server,
  fixture: BatchFixture,
  deliveries: SqlInbox,
  preset: ProviderPreset,
): Promise<void> {
  const ids = (list: readonly string[]) => list.map((id) => `${preset.provider}/${id}`).sort();
  const delivery = fixture.delivery();
  const forged = await sent(server, delivery.forged());
  expect(forged.status).toBe(fixture.forgedStatus ?? 401);
  expect(await deliveries.list()).toEqual([]);

  const first = await sent(server, delivery);
  const answer = inboxResponseOf(fixture.answer);
  expect([first.status, first.text]).toEqual([answer.status ?? 200, answer.body]);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(await storedIds(deliveries)).toEqual(ids(fixture.itemIds));
  const bodies = itemBodies(preset, delivery);
  for (const id of fixture.itemIds) {
    const item = await deliveries.find(preset.provider, id);
    expect(item?.body.toString('utf8')).toBe(bodies.get(id));
    expect(item?.headers['content-type']).toBe('application/json; charset=utf-8');
  }

  const again = await sent(server, delivery.retry());
  expect([again.status, again.text]).toEqual([answer.status ?? 200, answer.body]);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(await storedIds(deliveries)).toEqual(ids(fixture.itemIds));

  const rebatched = fixture.rebatched();
  // The provider's retry in another batch: the genuine batch's last item again, then a new one.
  expect([...itemBodies(preset, rebatched).keys()]).toEqual([
    fixture.itemIds.at(-1),
    fixture.newItemId,
  ]);
  const rebatch = await sent(server, rebatched);
  expect(rebatch.status).toBe(answer.status ?? 200);
  expect(rebatch.headers['idempotent-replayed']).toBeUndefined();
  expect(await storedIds(deliveries)).toEqual(ids([...fixture.itemIds, fixture.newItemId]));
  const added = await deliveries.find(preset.provider, fixture.newItemId);
  expect(added?.body.toString('utf8')).toBe(itemBodies(preset, rebatched).get(fixture.newItemId));
}

/**
 * Sends `fixture`'s handshakes (a verification GET, its forged copy, a handshake POST) to
 * `server`: each answered by the preset with its exact answer (the forged GET refused), nothing
 * stored. Resolves without sending anything for a preset with none.
 */
export async function expectBatchHandshakes(
  server: Server,
  fixture: BatchFixture,
  deliveries: SqlInbox,
): Promise<void> {
  const { handshake, postHandshake } = fixture;
  if (handshake) {
    const challenge = handshake.request();
    const forged = await sent(server, challenge.forged());
    expect(forged.status).toBe(handshake.forgedStatus);
    const answered = await sent(server, challenge);
    expect([answered.status, answered.text]).toEqual([200, challenge.answer]);
  }
  if (postHandshake) {
    const validation = postHandshake.request();
    const answered = await sent(server, validation);
    expect([answered.status, answered.text]).toEqual([200, validation.answer]);
  }
  expect(await deliveries.list()).toEqual([]);
}
