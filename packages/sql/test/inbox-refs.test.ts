/**
 * SqlInbox's reads for a relay and for listings, on every kind of connection: `claimRefs` leases
 * as `claim` does but returns references only (no body, no headers), `lapsed` finds the expired
 * handoffs a relay asks its queue about, and `list` returns summaries without bodies or headers.
 */
import { DeliveryStatus, type NewDelivery } from '@webhook-idempotency/core/inbox';
import { InboxSchema, SqlInbox } from '../src';
import { connectionKinds, type OpenedKind } from './helpers/kinds';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BODY = Buffer.alloc(4096, 0x61);
const REF_KEYS = ['attempts', 'externalId', 'failures', 'id', 'provider'];

describe.each(connectionKinds('inbox_refs'))('SqlInbox refs (%s)', (_name, open) => {
  let opened: OpenedKind;
  let inbox: SqlInbox;
  let table = 0;
  const delivery = (externalId: string): NewDelivery => ({
    provider: 'stripe',
    externalId,
    orderingKey: null,
    headers: { 'content-type': 'application/json', 'x-note': 'hello' },
    body: BODY,
  });

  beforeAll(async () => {
    opened = await open();
  });
  afterAll(() => opened.close());
  beforeEach(async () => {
    const name = `inbox_refs_${++table}`;
    await InboxSchema.createTable(opened.db, { table: name });
    inbox = new SqlInbox(opened.db, { table: name });
  });

  it('claimRefs leases like claim but returns only references: no body, no headers', async () => {
    for (const id of ['a', 'b']) await inbox.enqueue(delivery(id));
    const refs = await inbox.claimRefs({ providers: ['stripe'], limit: 10, leaseMs: 200 });
    expect(refs.map((r) => Object.keys(r).sort())).toEqual([REF_KEYS, REF_KEYS]);
    expect(refs).toEqual([
      { id: expect.any(Number), provider: 'stripe', externalId: 'a', attempts: 1, failures: 0 },
      { id: expect.any(Number), provider: 'stripe', externalId: 'b', attempts: 1, failures: 0 },
    ]);
    // Leased: nothing is due until the lease runs out; then a takeover counts a failure.
    expect(await inbox.claimRefs({ providers: ['stripe'], limit: 10, leaseMs: 200 })).toEqual([]);
    expect(await inbox.complete(refs[0]!)).toBe(true);
    await sleep(300);
    const [again] = await inbox.claimRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
    expect(again).toMatchObject({ externalId: 'b', attempts: 2, failures: 1 });
    expect(await inbox.find('stripe', 'b')).toMatchObject({ attempts: 2, failures: 1 });
  });

  it('lapsed lists the processing deliveries whose lease ran out, under the lease they hold, in id order after afterId', async () => {
    for (const id of ['a', 'b', 'c', 'd']) await inbox.enqueue(delivery(id));
    const short = await inbox.claimRefs({ providers: ['stripe'], limit: 3, leaseMs: 100 });
    await sleep(200);
    // 'd' is pending (the claim's to take), not a lapsed handoff.
    const lapsed = await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 });
    expect(lapsed.map((r) => [r.externalId, r.attempts, r.failures])).toEqual([
      ['a', 1, 0],
      ['b', 1, 0],
      ['c', 1, 0],
    ]);
    expect(lapsed.map((r) => Object.keys(r).sort())).toEqual([REF_KEYS, REF_KEYS, REF_KEYS]);
    expect(
      (await inbox.lapsed({ providers: ['stripe'], limit: 1, afterId: short[0]!.id })).map(
        (r) => r.externalId,
      ),
    ).toEqual(['b']);
    expect(await inbox.lapsed({ providers: ['github'], limit: 10, afterId: 0 })).toEqual([]);
    // Extended (the queue still has the job): no longer lapsed, and the claim leaves it alone.
    expect(await inbox.extend([short[0]!], { leaseMs: 60_000 })).toBe(1);
    expect(
      (await inbox.lapsed({ providers: ['stripe'], limit: 10, afterId: 0 })).map(
        (r) => r.externalId,
      ),
    ).toEqual(['b', 'c']);
    const claimed = await inbox.claimRefs({ providers: ['stripe'], limit: 10, leaseMs: 60_000 });
    expect(claimed.map((r) => r.externalId)).toEqual(['b', 'c', 'd']);
  });

  it('list returns summaries: the body size, never the body bytes or the headers', async () => {
    for (const id of ['a', 'b']) await inbox.enqueue(delivery(id));
    await inbox.claimRefs({ providers: ['stripe'], limit: 1, leaseMs: 60_000 });
    const rows = await inbox.list();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).not.toHaveProperty('body');
      expect(row).not.toHaveProperty('headers');
      expect(row.bodyBytes).toBe(BODY.length);
    }
    expect(rows.map((r) => [r.externalId, r.status, r.attempts])).toEqual([
      ['a', DeliveryStatus.PROCESSING, 1],
      ['b', DeliveryStatus.PENDING, 0],
    ]);
    expect(rows[0]!.availableAt).toBeInstanceOf(Date);
  });

  it('list pages with afterId and refuses a limit past 10 000', async () => {
    for (const id of ['a', 'b', 'c']) await inbox.enqueue(delivery(id));
    const [a] = await inbox.list({ limit: 1 });
    expect((await inbox.list({ afterId: a!.id })).map((r) => r.externalId)).toEqual(['b', 'c']);
    await expect(inbox.list({ limit: 10_001 })).rejects.toMatchObject({ option: 'limit' });
    await expect(inbox.list({ afterId: -1 })).rejects.toMatchObject({ option: 'afterId' });
    expect(await inbox.list({ limit: 10_000 })).toHaveLength(3);
  });
});
