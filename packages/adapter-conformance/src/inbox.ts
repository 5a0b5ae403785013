/**
 * @module runInboxConformance: the one HTTP suite of the inbox endpoint every adapter's
 * `inbox(options)` passes, against a real SQLite file and a listening server: stored once byte for
 * byte without credentials, a duplicate answered 200 without a second row, 401 and 400 with
 * nothing stored, 503 when the store is down, 503 with `Retry-After` over the backlog budget
 * (a stored delivery still replayed), the configured answer, the ordering key, a request handed
 * on to the route; every one-event preset's deliveries, and every batched preset's batch split
 * into one stored delivery per item.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryStatus, type InboxOptions } from '@webhook-idempotency/core/inbox';
import * as providers from '@webhook-idempotency/providers';
import * as signers from '@webhook-idempotency/providers/testing';
import { InboxSchema, SqlInbox } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import request from 'supertest';
import { expectBatchHandshakes, expectBatchInbox, inboxResponseOf } from './inbox-batches';
import { expectPresetInbox } from './inbox-presets';
import { batchFixtures, presetFixtures } from './presets';
import type { RunningApp } from './types';

/** One adapter's inbox endpoint, as the suite starts it. */
export interface InboxEntry {
  readonly name: string;
  /**
   * Starts an app on 127.0.0.1 whose `POST /hook` and `POST /hook/<operation>` read the raw body
   * (JSON and form bodies) the way the adapter's docs say and are answered by `inbox(options)`,
   * as is `GET /hook` (a provider's verification GET); a request the endpoint hands on reaches a
   * handler answering 200 `{"passed":true}`.
   */
  start(options: InboxOptions<never>): Promise<RunningApp>;
}

const SECRET = 'whsec_conformance_inbox';
const sign = (body: string) =>
  signers.stripe({ secret: SECRET }).event(body).headers['stripe-signature']!;
// Odd spacing and key order: a re-serialised body would not match these bytes.
const event = (id: string, customer = 'cus_1') =>
  `{ "id":"${id}",  "type":"invoice.paid", "data":{"object":{"customer":"${customer}"}} }`;

/**
 * Registers the inbox endpoint suite with jest for each entry. Call it at the top level of an
 * adapter's test file.
 * @example
 * runInboxConformance({ name: 'express 5', start: async (options) => running(appWith(inbox(options)).listen(0)) });
 */
export function runInboxConformance(entries: InboxEntry | readonly InboxEntry[]): void {
  for (const entry of Array.isArray(entries) ? entries : [entries as InboxEntry]) {
    describe(`Inbox conformance: ${entry.name}`, () => {
      let db: Database.Database;
      let deliveries: SqlInbox;
      let app: RunningApp | undefined;
      const start = async (options: Partial<InboxOptions<never>> = {}) => {
        const started = await entry.start({
          inbox: deliveries,
          preset: providers.stripe({ secret: SECRET }),
          ...options,
        } as InboxOptions<never>);
        app = started;
        return started.server;
      };
      const post = (server: RunningApp['server'], body: string, signature = sign(body)) =>
        request(server)
          .post('/hook')
          .set('content-type', 'application/json')
          .set('stripe-signature', signature)
          .set('authorization', 'Bearer secret')
          .set('cookie', 'session=secret')
          .send(body);

      beforeEach(async () => {
        const dir = mkdtempSync(join(process.env.WI_TMP ?? tmpdir(), 'inbox-conformance-'));
        db = new Database(join(dir, 'inbox.db'));
        db.pragma('journal_mode = WAL');
        await InboxSchema.createTable(db);
        deliveries = new SqlInbox(db);
      });
      afterEach(async () => {
        await app?.close();
        app = undefined;
        if (db.open) db.close();
      });

      it('stores a verified delivery once, byte for byte and without credentials; a duplicate is 200 with Idempotent-Replayed', async () => {
        const server = await start();
        const body = event('evt_1');
        const first = await post(server, body);
        const second = await post(server, body);
        expect([first.status, second.status]).toEqual([200, 200]);
        expect(first.body).toEqual({ received: true });
        expect(first.headers['idempotent-replayed']).toBeUndefined();
        expect(second.headers['idempotent-replayed']).toBe('true');
        const stored = await deliveries.list();
        expect(stored).toHaveLength(1);
        expect(stored[0]).toMatchObject({ status: DeliveryStatus.PENDING, provider: 'stripe' });
        expect(stored[0]!.externalId).toBe('evt_1');
        const whole = (await deliveries.find('stripe', 'evt_1'))!;
        expect(whole.body.toString('utf8')).toBe(body);
        expect(whole.headers.authorization).toBeUndefined();
        expect(whole.headers.cookie).toBeUndefined();
        expect(whole.headers['stripe-signature']).toMatch(/^t=/);
      });

      it('a bad signature is 401 and a delivery without an id 400, nothing stored', async () => {
        const server = await start();
        const forged = await post(server, event('evt_forged'), sign(event('evt_other')));
        expect(forged.status).toBe(401);
        const missing = await post(server, '{"type":"invoice.paid"}');
        expect(missing.status).toBe(400);
        expect(missing.body.code).toBe('ERR_IDEMPOTENCY_KEY_MISSING');
        expect(await deliveries.list()).toEqual([]);
      });

      it('a store that is down is 503 with Retry-After, and no driver message reaches the caller', async () => {
        const server = await start();
        db.close();
        const response = await post(server, event('evt_down'));
        expect(response.status).toBe(503);
        expect(response.headers['retry-after']).toBe('1');
        expect(response.text).not.toMatch(/database|sqlite|connection is not open/i);
      });

      it("a request without an id goes on to the route's handler with onMissingKey: 'passthrough'", async () => {
        const server = await start({ onMissingKey: 'passthrough' });
        const response = await post(server, '{"type":"ping"}');
        expect([response.status, response.body]).toEqual([200, { passed: true }]);
        expect(await deliveries.list()).toEqual([]);
      });

      it('refuses to start without a preset or verify unless marked unverified, and then stores any request', async () => {
        const unauthenticated = { inbox: deliveries, provider: 'stripe', key: () => 'evt_pinned' };
        // A forged first delivery would otherwise be stored and pin the id: the genuine one would
        // be answered as a duplicate and dropped. So the endpoint never starts that way by default.
        await expect(
          (async () => entry.start(unauthenticated as unknown as InboxOptions<never>))(),
        ).rejects.toMatchObject({ name: 'ConfigError', option: 'verify' });
        await expect(
          (async () =>
            entry.start({
              ...unauthenticated,
              unverified: true,
              verify: () => true,
            } as unknown as InboxOptions<never>))(),
        ).rejects.toMatchObject({ name: 'ConfigError', option: 'unverified' });
        const server = await start({ preset: undefined, ...unauthenticated, unverified: true });
        const response = await post(server, '{"forged":true}', 'no signature');
        expect(response.status).toBe(200);
        expect((await deliveries.find('stripe', 'evt_pinned'))!.body.toString('utf8')).toBe(
          '{"forged":true}',
        );
      });

      it('over its backlog budget: 503 + Retry-After storing nothing, a stored delivery still 200 replayed, stored again once drained', async () => {
        for (const id of ['evt_1', 'evt_2'])
          await deliveries.enqueue({
            provider: 'stripe',
            externalId: id,
            orderingKey: null,
            headers: {},
            body: Buffer.from(event(id)),
          });
        const server = await start({ backpressure: { maxPending: 2, refreshMs: 0 } });
        const refused = await post(server, event('evt_new'));
        expect(refused.status).toBe(503);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(refused.body.code).toBe('ERR_IDEMPOTENCY_BACKPRESSURE');
        expect(await deliveries.find('stripe', 'evt_new')).toBeNull();
        const duplicate = await post(server, event('evt_1'));
        expect(duplicate.status).toBe(200);
        expect(duplicate.headers['idempotent-replayed']).toBe('true');
        const leased = await deliveries.lease({
          providers: ['stripe'],
          limit: 10,
          leaseMs: 60_000,
        });
        for (const delivery of leased) await deliveries.complete(delivery);
        const accepted = await post(server, event('evt_new'));
        expect([accepted.status, accepted.headers['idempotent-replayed']]).toEqual([
          200,
          undefined,
        ]);
        expect((await deliveries.find('stripe', 'evt_new'))!.body.toString('utf8')).toBe(
          event('evt_new'),
        );
      });

      describe("every preset that delivers one event per request, with the test kit's deliveries", () => {
        for (const fixture of presetFixtures)
          it(`${fixture.name}: the forged copy is refused with nothing stored; the signer's delivery is stored once byte for byte, the provider's retry answered as a duplicate`, async () => {
            const preset = fixture.preset();
            const server = await start({ preset });
            await expectPresetInbox(server, fixture, deliveries, preset.provider);
          });
      });

      describe("every batched preset, with the test kit's batches: one delivery per item", () => {
        for (const fixture of batchFixtures)
          it(`${fixture.name}: handshakes answered and a forged batch refused, nothing stored; each item stored once as its JSON, the retry a duplicate, the re-batch storing only its new item`, async () => {
            const preset = fixture.preset();
            const server = await start({ preset, response: inboxResponseOf(fixture.answer) });
            await expectBatchHandshakes(server, fixture, deliveries);
            await expectBatchInbox(server, fixture, deliveries, preset);
          });
      });

      it('answers with the configured response and stores the ordering key the option derives', async () => {
        const server = await start({
          response: { status: 202, body: 'queued', contentType: 'text/plain' },
          orderingKey: (_native: never, raw: Buffer) =>
            JSON.parse(raw.toString('utf8')).data.object.customer,
        });
        const response = await post(server, event('evt_ordered', 'cus_42'));
        expect(response.status).toBe(202);
        expect(response.text).toBe('queued');
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        expect((await deliveries.find('stripe', 'evt_ordered'))!.orderingKey).toBe('cus_42');
      });
    });
  }
}
