/** @module What the inbox-store cases share: a delivery to store, a lease of everything due, and one delivery stored and leased. */
import type { Delivery, NewDelivery } from '../../inbox/types';
import type { InboxStore } from '../../inbox/inbox-store';

// Every byte value, and bytes that are not UTF-8: the body must come back exactly.
export const BODY = Buffer.concat([
  Buffer.from('{"id":"evt_1"}'),
  Buffer.from([0, 0xff, 0xfe, 0x80]),
]);
/** A lease no case outlives. */
export const LEASE = 60_000;

/** A Stripe delivery with {@link BODY}, no ordering key; `extra` overrides any field. */
export const delivery = (externalId: string, extra: Partial<NewDelivery> = {}): NewDelivery => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=ab' },
  body: BODY,
  ...extra,
});

/** Claims up to `limit` due deliveries of `providers` under a {@link LEASE}. */
export const leaseAll = (
  inbox: InboxStore,
  limit = 100,
  providers: readonly string[] = ['stripe'],
): Promise<Delivery[]> => inbox.lease({ providers, limit, leaseMs: LEASE });

/** {@link delivery} `externalId`, stored and then leased: where the lease-end and redeliver cases start. */
export async function leaseOne(inbox: InboxStore, externalId: string): Promise<Delivery> {
  await inbox.enqueue(delivery(externalId));
  const [first] = await leaseAll(inbox);
  if (first === undefined) throw new Error(`${externalId} was stored but could not be leased`);
  return first;
}
