/**
 * The inbox worker on InMemoryInbox and InMemoryStore: five deliveries claimed together with slow
 * handlers and eight idle lanes all run at the same moment, each once (the SQL stores, which run
 * deliveries in batches, are held to the same in
 * packages/sql/test/regression/worker-slow-handler-batch.test.ts). Shown by overlap, never by
 * speed: each handler waits at a barrier that opens only once all five have started; a handler
 * that waits longer than a generous bound fails, so the test fails.
 */
import { InMemoryStore } from '../../src';
import { createInboxWorker, type InboxEvent, InMemoryInbox } from '../../src/inbox';

const DELIVERIES = 5;
/** How long a handler waits for the others to start before it fails: a liveness bound, not a speed. */
const BARRIER_WAIT_MS = 10_000;

it('five slow deliveries claimed together with lanes free all run at once; each is done once', async () => {
  const inbox = new InMemoryInbox();
  const ids = Array.from({ length: DELIVERIES }, (_, i) => `evt_${i + 1}`);
  for (const id of ids)
    await inbox.enqueue({
      provider: 'stripe',
      externalId: id,
      orderingKey: null,
      headers: {},
      body: Buffer.from(id),
    });
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let running = 0;
  let most = 0;
  const events: InboxEvent[] = [];
  const worker = createInboxWorker({
    inbox,
    store: new InMemoryStore(),
    handlers: {
      stripe: async (delivery) => {
        most = Math.max(most, ++running);
        if (++arrived === DELIVERIES) open();
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          await Promise.race([
            opened,
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(new Error(`only ${arrived} of ${DELIVERIES} handlers had started`)),
                BARRIER_WAIT_MS,
              );
            }),
          ]);
        } finally {
          clearTimeout(timer);
          running--;
        }
        return { booked: delivery.externalId };
      },
    },
    onEvent: (event) => void events.push(event),
  });

  expect(await worker.runOnce()).toBe(DELIVERIES);

  expect(most).toBe(DELIVERIES);
  expect(events.map((e) => e.type)).toEqual(ids.map(() => 'processed'));
  expect((await inbox.list()).map((d) => [d.externalId, d.status, d.failures])).toEqual(
    ids.map((id) => [id, 'done', 0]),
  );
});
