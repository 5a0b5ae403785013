/**
 * @module A route set (`routes(preset, { … })`) as the adapter's preset: routed events run their
 * route once under the delivery's receipt, events no route takes are acknowledged with nothing
 * claimed, stored or run, payloads their schema refuses are answered 422 with nothing stored, and
 * a batch routes each item. The adapter only passes the route set through.
 */
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import {
  flushIgnored,
  routes,
  type StandardSchema,
  validated,
} from '@webhook-idempotency/core/routes';
import * as providers from '@webhook-idempotency/providers';
import type { AdapterCase } from '../case';
import { gate } from '../harness';

const SECRET = 'whsec_conformance_routes';
const DUPLICATES = 20;

/** A Stripe-signed delivery of `event` (the preset's minimal event map: any name). */
function stripeDelivery(id: string, type: string, object: object = {}) {
  const body = JSON.stringify({ id, type, data: { object } });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  return { body, headers: { 'stripe-signature': `t=${t},v1=${v1}` } };
}

/** A hand-written Standard Schema: `{ data: { object: { amount: number } } }` → the amount. */
const amountSchema: StandardSchema<unknown, number> = {
  '~standard': {
    version: 1,
    vendor: 'conformance',
    validate(value) {
      const amount = (value as { data?: { object?: { amount?: unknown } } })?.data?.object?.amount;
      if (typeof amount === 'number') return { value: amount };
      return { issues: [{ message: 'Expected a number', path: ['data', 'object', 'amount'] }] };
    },
  },
};

const SENDGRID = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
/** A SendGrid-signed batch of `[sg_event_id, event]` items. */
function sendgridBatch(items: readonly (readonly [string, string])[]) {
  const body = JSON.stringify(items.map(([sg_event_id, event]) => ({ sg_event_id, event })));
  const stamp = String(Math.floor(Date.now() / 1000));
  const signature = sign('sha256', Buffer.from(stamp + body), SENDGRID.privateKey);
  return {
    body,
    headers: {
      'x-twilio-email-event-webhook-timestamp': stamp,
      'x-twilio-email-event-webhook-signature': signature.toString('base64'),
    },
  };
}

const stripe = () => providers.stripe({ secret: SECRET });
const key = (externalId: string) => ({ provider: 'stripe', externalId });

export const routeCases: AdapterCase[] = [
  {
    group: 'routes',
    name: "a routed event runs its route once under its receipt and is replayed; an event no route takes is answered 200 with nothing claimed, stored or run, and counted as ignored (in the store's counts, for a store that keeps them)",
    async run(h) {
      const ran: string[] = [];
      const preset = routes(stripe(), {
        'payment_intent.succeeded': (event, { key: k }) => {
          ran.push(`${k.externalId}:${(event as { type: string }).type}`);
          return { booked: true };
        },
        'invoice.*': () => ran.push('invoice'),
      });
      await h.start({ preset });
      const paid = stripeDelivery('evt_paid', 'payment_intent.succeeded');
      const first = await h.post(undefined, paid.body, paid.headers);
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body.toString())).toEqual({ booked: true });
      const again = await h.post(undefined, paid.body, paid.headers);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(Buffer.compare(again.body, first.body)).toBe(0);
      expect(await h.guard.find(key('evt_paid'))).toMatchObject({ status: 'completed' });

      const other = stripeDelivery('evt_other', 'customer.created');
      const ignored = await h.post(undefined, other.body, other.headers);
      expect(ignored.status).toBe(200);
      await h.events('ignored');
      expect(await h.guard.find(key('evt_other'))).toBeNull();
      // Counted in the store's ignored counts (a store that keeps them), once its tally is written.
      if (h.store.capabilities.ignoredCounts) {
        await flushIgnored(h.store);
        const counts = await h.store.ignoredCounts!({
          now: Date.now(),
          since: Date.now() - 3_600_000,
        });
        expect(counts).toEqual([
          expect.objectContaining({ provider: 'stripe', type: 'customer.created', count: 1 }),
        ]);
      }

      const invoice = stripeDelivery('evt_invoice', 'invoice.paid');
      expect((await h.post(undefined, invoice.body, invoice.headers)).status).toBe(200);
      expect(ran).toEqual(['evt_paid:payment_intent.succeeded', 'invoice']);
      expect(h.calls()).toBe(0);
      expect(h.claims()).toBe(2);
    },
  },
  {
    group: 'routes',
    name: `${DUPLICATES} concurrent duplicates of a routed event run its route once`,
    async run(h) {
      const hold = gate();
      let runs = 0;
      let answered = 0;
      const check = () => {
        if (answered + runs >= DUPLICATES) hold.open();
      };
      const preset = routes(stripe(), {
        'payment_intent.succeeded': async () => {
          runs++;
          check();
          await hold.promise;
          return { run: runs };
        },
      });
      await h.start({ preset });
      const paid = stripeDelivery('evt_storm', 'payment_intent.succeeded');
      const responses = await Promise.all(
        Array.from({ length: DUPLICATES }, () =>
          h.post(undefined, paid.body, paid.headers).then((res) => {
            answered++;
            check();
            return res;
          }),
        ),
      );
      expect(runs).toBe(1);
      expect(responses.every((res) => res.status === 200 || res.status === 409)).toBe(true);
      const fresh = responses.filter(
        (res) => res.status === 200 && res.headers['idempotent-replayed'] === undefined,
      );
      expect(fresh).toHaveLength(1);
      expect(await h.guard.find(key('evt_storm'))).toMatchObject({ status: 'completed' });
    },
  },
  {
    group: 'routes',
    name: "a payload its route's schema refuses is answered 422 with the issues, nothing claimed or stored; a valid one runs with the schema's output",
    async run(h) {
      const amounts: number[] = [];
      const preset = routes(stripe(), {
        'charge.succeeded': validated(amountSchema, (amount) => {
          amounts.push(amount);
        }),
      });
      await h.start({ preset });
      const bad = stripeDelivery('evt_bad', 'charge.succeeded', { amount: 'ten' });
      const refused = await h.post(undefined, bad.body, bad.headers);
      expect(refused.status).toBe(422);
      expect(JSON.parse(refused.body.toString())).toMatchObject({
        code: 'ERR_IDEMPOTENCY_PAYLOAD_INVALID',
        issues: ['data.object.amount: Expected a number'],
      });
      await h.events('refused');
      expect(await h.guard.find(key('evt_bad'))).toBeNull();
      expect(h.claims()).toBe(0);

      const good = stripeDelivery('evt_good', 'charge.succeeded', { amount: 1250 });
      expect((await h.post(undefined, good.body, good.headers)).status).toBe(200);
      expect(amounts).toEqual([1250]);
    },
  },
  {
    group: 'routes',
    name: 'a batch routes each item under its own receipt; items no route takes get none, and a batch of only those is acknowledged unclaimed',
    async run(h) {
      const ran: string[] = [];
      const preset = routes(
        providers.sendgrid({
          publicKey: SENDGRID.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
        }),
        { bounce: (event) => ran.push((event as { sg_event_id: string }).sg_event_id) },
      );
      await h.start({ preset });
      const mixed = sendgridBatch([
        ['sg-1', 'delivered'],
        ['sg-2', 'bounce'],
      ]);
      expect((await h.post(undefined, mixed.body, mixed.headers)).status).toBe(200);
      expect(ran).toEqual(['sg-2']);
      expect(await h.guard.find({ provider: 'sendgrid', externalId: 'sg-2' })).toMatchObject({
        status: 'completed',
      });
      expect(await h.guard.find({ provider: 'sendgrid', externalId: 'sg-1' })).toBeNull();
      const claims = h.claims();
      const none = sendgridBatch([['sg-3', 'open']]);
      expect((await h.post(undefined, none.body, none.headers)).status).toBe(200);
      await h.events('ignored');
      expect(h.claims()).toBe(claims);
      expect(h.calls()).toBe(0);
    },
  },
];
