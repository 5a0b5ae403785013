/**
 * @module The inbox endpoint with each preset's deliveries as the test kit signs them: the forged
 * copy refused with nothing stored, the genuine delivery stored once byte for byte under the
 * preset's key, and the provider's retry of it answered as a duplicate.
 */
import type { SqlInbox } from '@webhook-idempotency/sql';
import request from 'supertest';
import { type Delivery, send } from '@webhook-idempotency/providers/testing';
import type { PresetFixture } from './presets';
import type { RunningApp } from './types';

/** POSTs a signed request as the kit made it (its path, headers and exact bytes), with the kit's supertest helper. */
const post = (server: RunningApp['server'], delivery: Delivery) =>
  send.supertest(request(server), delivery);

/** Sends `fixture`'s forged copy, delivery and retry to `server`, an inbox endpoint on `deliveries`. */
export async function expectPresetInbox(
  server: RunningApp['server'],
  fixture: PresetFixture,
  deliveries: SqlInbox,
  provider: string,
): Promise<void> {
  const delivery = fixture.delivery();
  const forged = await post(server, delivery.forged());
  expect(forged.status).toBe(fixture.forgedStatus ?? 401);
  expect(await deliveries.list()).toEqual([]);

  const first = await post(server, delivery);
  expect(first.status).toBe(200);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const again = await post(server, delivery.retry());
  expect(again.status).toBe(200);
  expect(again.headers['idempotent-replayed']).toBe('true');

  const stored = await deliveries.list();
  expect(stored.map((row) => [row.provider, row.externalId])).toEqual([
    [provider, fixture.externalId],
  ]);
  const whole = await deliveries.find(provider, fixture.externalId);
  expect(whole?.body.equals(delivery.body)).toBe(true);
}
