/**
 * @module Inbox-store cases: the inbox endpoint's backpressure over the store, by its two reads
 * (the backlog and one key): a provider over its depth budget is refused unstored with
 * `Retry-After` while its stored deliveries are still answered as duplicates and other providers
 * are stored; once the worker has caught up it is stored again.
 */
import type { HttpRequest } from '../../http/types';
import { createInboxEngine, type InboxEngine } from '../../inbox/accept';
import type { InboxStore } from '../../inbox/inbox-store';
import type { InboxEvent } from '../../inbox/types';
import { leaseAll, delivery } from './fixtures';
import type { InboxConformanceCase } from './types';

const BUDGET = 3;

/** An unauthenticated endpoint of `provider` (the request's native value is its id), refused at {@link BUDGET}. */
function endpoint(inbox: InboxStore, provider: string, events: InboxEvent[]): InboxEngine<string> {
  return createInboxEngine<string>({
    inbox,
    provider,
    key: (id) => id,
    unverified: true,
    backpressure: { maxPending: BUDGET, refreshMs: 0 },
    onEvent: (event) => events.push(event),
  });
}

const post = (id: string): HttpRequest<string> => ({
  method: 'POST',
  url: '/hook',
  headers: { 'content-type': 'application/json' },
  rawBody: Buffer.from(`{"id":"${id}"}`),
  body: undefined,
  native: id,
});

/** The status, `Retry-After` and stored flag an endpoint decided for a delivery. */
async function answer(engine: InboxEngine<string>, id: string) {
  const decision = await engine.accept(post(id));
  if (decision.action !== 'respond') throw new Error(`${id} was handed on, not answered`);
  const { status, headers } = decision.response;
  return { status, retryAfter: headers['retry-after'], stored: decision.stored };
}

export const backpressureCases: InboxConformanceCase[] = [
  {
    group: 'backpressure',
    name: 'over its depth budget a provider is refused 503 + Retry-After unstored, duplicates still replay, other providers store, and it stores again once drained',
    async run({ inbox }) {
      for (let i = 1; i <= BUDGET; i++) await inbox.enqueue(delivery(`evt_${i}`));
      const events: InboxEvent[] = [];
      const stripe = endpoint(inbox, 'stripe', events);
      const github = endpoint(inbox, 'github', events);

      const refused = await answer(stripe, 'evt_new');
      expect(refused).toMatchObject({ status: 503, stored: false });
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(await inbox.find('stripe', 'evt_new')).toBeNull();
      expect(await answer(stripe, 'evt_new')).toMatchObject({ status: 503, stored: false });
      // Already stored: answered as before (2xx, not stored again), never refused.
      expect(await answer(stripe, 'evt_2')).toEqual({
        status: 200,
        retryAfter: undefined,
        stored: false,
      });
      expect(await answer(github, 'gh_1')).toMatchObject({ status: 200, stored: true });
      expect((await inbox.list({ provider: 'stripe' })).map((d) => d.externalId)).toEqual([
        'evt_1',
        'evt_2',
        'evt_3',
      ]);

      for (const leased of await leaseAll(inbox)) expect(await inbox.complete(leased)).toBe(true);
      expect(await answer(stripe, 'evt_new')).toMatchObject({ status: 200, stored: true });
      expect(await inbox.find('stripe', 'evt_new')).not.toBeNull();
      const changes = events.filter((e) => e.type === 'backpressure');
      expect(changes).toEqual([
        expect.objectContaining({ state: 'started', provider: 'stripe', unfinished: BUDGET }),
        expect.objectContaining({ state: 'ended', provider: 'stripe', unfinished: 0 }),
      ]);
      const outcomes = events.flatMap((e) => (e.type === 'answered' ? [e.outcome] : []));
      expect(outcomes).toEqual(['backpressure', 'backpressure', 'duplicate', 'stored', 'stored']);
    },
  },
];
