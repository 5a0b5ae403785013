/**
 * A relay stopped and then driven by `runOnce()` (a job runner that owns the schedule): each
 * call hands over what is due, `running` stays false, and a later `start()` runs the loop again.
 */
import { createInboxRelay, type QueuedDelivery } from '../../src/adapter';
import { InMemoryInbox } from '../../src/inbox';

const delivery = (externalId: string) => ({
  provider: 'stripe',
  externalId,
  orderingKey: null,
  headers: {},
  body: Buffer.from('{}'),
});

it('runOnce() after a stop hands over what is due, and start() runs the loop again', async () => {
  const inbox = new InMemoryInbox();
  const sent: QueuedDelivery[] = [];
  let looped = () => {};
  const relay = createInboxRelay({
    inbox,
    providers: ['stripe'],
    send: async (jobs) => {
      sent.push(...jobs);
      looped();
    },
  });
  relay.start();
  await relay.stop();
  await inbox.enqueue(delivery('evt_1'));
  expect(await relay.runOnce()).toBe(1);
  expect(sent.map((d) => d.externalId)).toEqual(['evt_1']);
  expect(relay.running).toBe(false);

  await inbox.enqueue(delivery('evt_2'));
  const handedOver = new Promise<void>((resolve) => {
    looped = resolve;
  });
  relay.start();
  expect(relay.running).toBe(true);
  await handedOver;
  await relay.stop();
  expect(sent.map((d) => d.externalId)).toEqual(['evt_1', 'evt_2']);
  expect(relay.running).toBe(false);
});
