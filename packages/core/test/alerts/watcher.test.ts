/**
 * The alert watcher over a real inbox (InMemoryInbox on a clock the test moves) and real HTTP
 * receivers on loopback that count what they get: each incident is posted once when it starts and
 * once when it ends however many polls see it; a notice a receiver refused or never answered is
 * reported and sent again on the next poll; bodies and answers are bounded; options are checked.
 */
import {
  type Alert,
  createAlertWatcher,
  signedWebhook,
  slackWebhook,
  verifyAlertSignature,
  type WatcherEvent,
} from '@webhook-idempotency/core/alerts';
import { InMemoryInbox, type NewDelivery } from '@webhook-idempotency/core/inbox';
import { json, startReceiver } from './receiver';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const MINUTE = 60_000;

const delivery = (externalId: string, provider = 'stripe'): NewDelivery => ({
  provider,
  externalId,
  orderingKey: null,
  headers: {},
  body: Buffer.from('{}'),
});

function clock(start = Date.UTC(2026, 11, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number): void {
      now += ms;
    },
  };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
afterEach(() => receiver?.close());

/** An inbox and a watcher posting signed alerts to the receiver, on one clock. */
async function setup(extra: Partial<Parameters<typeof createAlertWatcher>[0]> = {}) {
  receiver = await startReceiver();
  const time = clock();
  const inbox = new InMemoryInbox({ now: time.now });
  const events: WatcherEvent[] = [];
  const watcher = createAlertWatcher({
    inbox,
    notify: signedWebhook({ url: receiver.url, secret: SECRET, timeoutMs: 2000 }),
    stuckAfterMs: 5 * MINUTE,
    now: time.now,
    onEvent: (event) => events.push(event),
    ...extra,
  });
  const alerts = () =>
    receiver.posts.map((p) => {
      const data = json(p).data as Alert;
      return `${data.state} ${data.id}`;
    });
  return { inbox, time, watcher, events, alerts };
}

describe('the alert watcher', () => {
  it('posts a stuck backlog once when it starts and once when it ends, whatever the number of polls; a new incident again', async () => {
    const { inbox, time, watcher, alerts } = await setup();
    await inbox.enqueue(delivery('evt_1'));
    expect(await watcher.checkOnce()).toEqual([]);
    time.advance(5 * MINUTE);
    const [firing] = await watcher.checkOnce();
    expect(firing).toMatchObject({
      id: 'stuck:stripe',
      state: 'firing',
      value: 1,
      provider: 'stripe',
    });
    for (let i = 0; i < 3; i++) {
      time.advance(MINUTE);
      expect(await watcher.checkOnce()).toEqual([]);
    }
    expect(alerts()).toEqual(['firing stuck:stripe']);
    expect(watcher.firing.map((a) => a.id)).toEqual(['stuck:stripe']);
    const [leased] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: MINUTE });
    await inbox.complete(leased!);
    expect((await watcher.checkOnce()).map((a) => a.state)).toEqual(['resolved']);
    await watcher.checkOnce();
    expect(alerts()).toEqual(['firing stuck:stripe', 'resolved stuck:stripe']);
    expect(watcher.firing).toEqual([]);
    // Every post is signed, and verifies with the secret.
    for (const post of receiver.posts)
      expect(verifyAlertSignature({ headers: post.headers, body: post.body, secret: SECRET })).toBe(
        true,
      );
    // The next backlog is a new incident.
    await inbox.enqueue(delivery('evt_2'));
    time.advance(6 * MINUTE);
    await watcher.checkOnce();
    expect(alerts()).toEqual([
      'firing stuck:stripe',
      'resolved stuck:stripe',
      'firing stuck:stripe',
    ]);
  });

  it("uses each provider's threshold, and posts a new dead letter once until none died within the window", async () => {
    const { inbox, time, watcher, alerts } = await setup({
      stuckAfterMsByProvider: { shopify: 60 * MINUTE },
      deadWithinMs: 15 * MINUTE,
    });
    await inbox.enqueue(delivery('slow', 'shopify'));
    await inbox.enqueue(delivery('doomed'));
    const [doomed] = await inbox.lease({ providers: ['stripe'], limit: 1, leaseMs: MINUTE });
    await inbox.bury(doomed!, { error: 'Error: no customer' });
    time.advance(10 * MINUTE); // shopify's delivery is 10 minutes old: under its hour
    await watcher.checkOnce();
    expect(alerts()).toEqual(['firing dead-letters:stripe']);
    time.advance(10 * MINUTE); // died 20 minutes ago: no longer new
    await watcher.checkOnce();
    expect(alerts()).toEqual(['firing dead-letters:stripe', 'resolved dead-letters:stripe']);
    time.advance(45 * MINUTE);
    await watcher.checkOnce();
    expect(alerts().at(-1)).toBe('firing stuck:shopify');
  });

  it('a receiver that fails (500) is reported, and the notice is sent again on the next poll until it is taken, then never again', async () => {
    const { inbox, time, watcher, events, alerts } = await setup();
    receiver.set('fail');
    await inbox.enqueue(delivery('evt_1'));
    time.advance(6 * MINUTE);
    await watcher.checkOnce();
    await watcher.checkOnce();
    const failed = events.filter((e) => e.type === 'notify-failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ error: { name: 'NotifyError', status: 500 } });
    receiver.set('ok');
    await watcher.checkOnce();
    await watcher.checkOnce();
    expect(alerts()).toEqual(['firing stuck:stripe', 'firing stuck:stripe', 'firing stuck:stripe']);
    expect(events.filter((e) => e.type === 'notified')).toHaveLength(1);
    // The notice keeps its id across tries: a receiver can drop the repeats.
    expect(new Set(receiver.posts.map((p) => p.headers['webhook-id'])).size).toBe(1);
  });

  it('a receiver that never answers costs one bounded send: the check ends, the failure is reported', async () => {
    receiver = await startReceiver('hang');
    const time = clock();
    const inbox = new InMemoryInbox({ now: time.now });
    await inbox.enqueue(delivery('evt_1'));
    time.advance(6 * MINUTE);
    const events: WatcherEvent[] = [];
    const watcher = createAlertWatcher({
      inbox,
      notify: signedWebhook({ url: receiver.url, secret: SECRET, timeoutMs: 300 }),
      now: time.now,
      onEvent: (event) => events.push(event),
    });
    await watcher.checkOnce();
    expect(receiver.open).toBe(1); // still waiting for an answer that never comes
    expect(events).toEqual([
      expect.objectContaining({
        type: 'notify-failed',
        error: expect.objectContaining({ name: 'NotifyError', status: 0 }),
      }),
    ]);
    // A notifier of your own that ignores its signal is bounded all the same.
    const stuck = createAlertWatcher({
      inbox,
      notify: () => new Promise<void>(() => undefined),
      sendTimeoutMs: 300,
      now: time.now,
      onEvent: (event) => events.push(event),
    });
    await stuck.checkOnce();
    expect(events.at(-1)).toMatchObject({ type: 'notify-failed' });
  });

  it('bounds what it sends and reads: a long summary is cut to maxBodyBytes; an endless refusal is read only in part', async () => {
    receiver = await startReceiver('fail-endless');
    const time = clock();
    const inbox = new InMemoryInbox({ now: time.now });
    await inbox.enqueue(delivery('evt_1', `p${'x'.repeat(150)}`));
    time.advance(6 * MINUTE);
    const events: WatcherEvent[] = [];
    const watcher = createAlertWatcher({
      inbox,
      notify: slackWebhook({ url: receiver.url, maxBodyBytes: 300, timeoutMs: 5000 }),
      now: time.now,
      onEvent: (event) => events.push(event),
    });
    await watcher.checkOnce();
    expect(receiver.posts).toHaveLength(1);
    expect(receiver.posts[0]!.body.length).toBeLessThanOrEqual(300);
    expect(String(json(receiver.posts[0]!).text)).toMatch(/^\[FIRING\] stuck \(px+\): 1 px+…$/);
    const [failed] = events;
    expect(failed).toMatchObject({ type: 'notify-failed', error: { status: 500 } });
    const message = (failed as { error: Error }).error.message;
    expect(message.length).toBeLessThan(300);
  });

  it("escapes Slack's markup in stored names", async () => {
    receiver = await startReceiver();
    const time = clock();
    const inbox = new InMemoryInbox({ now: time.now });
    await inbox.enqueue(delivery('evt_1', '<!channel>&co'));
    time.advance(6 * MINUTE);
    await createAlertWatcher({
      inbox,
      notify: slackWebhook({ url: receiver.url }),
      now: time.now,
    }).checkOnce();
    const text = String(json(receiver.posts[0]!).text);
    expect(text).toContain('&lt;!channel&gt;&amp;co');
    expect(text).not.toContain('<!channel>');
  });

  it('stop() ends a send in flight, and start() polls on timers that do not keep the process alive', async () => {
    receiver = await startReceiver('hang');
    const time = clock();
    const inbox = new InMemoryInbox({ now: time.now });
    await inbox.enqueue(delivery('evt_1'));
    time.advance(6 * MINUTE);
    const events: WatcherEvent[] = [];
    const watcher = createAlertWatcher({
      inbox,
      notify: signedWebhook({ url: receiver.url, secret: SECRET, timeoutMs: 60_000 }),
      intervalMs: 1000,
      now: time.now,
      onEvent: (event) => events.push(event),
    });
    const arrived = receiver.nextPost();
    watcher.start();
    expect(watcher.running).toBe(true);
    await arrived;
    await watcher.stop();
    expect(watcher.running).toBe(false);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'notify-failed',
        error: expect.objectContaining({ message: 'the alert watcher was stopped' }),
      }),
    ]);
  });

  it('refuses bad options, naming them', () => {
    const notify = () => undefined;
    const inbox = new InMemoryInbox();
    for (const [options, option] of [
      [{ notify }, 'inbox'],
      [{ inbox, notify: [] }, 'notify'],
      [{ inbox, notify, intervalMs: 10 }, 'intervalMs'],
      [{ inbox, notify, failureRate: { above: 2 } }, 'failureRate.above'],
      [{ inbox, notify, stuckAfterMsByProvider: { stripe: -1 } }, 'stuckAfterMsByProvider.stripe'],
      [{ inbox, notify, every: 1 }, 'every'],
    ] as const)
      expect(() => createAlertWatcher(options as never)).toThrow(
        expect.objectContaining({ name: 'ConfigError', option }),
      );
    expect(() => signedWebhook({ url: 'http://x', secret: 'short' })).toThrow(
      expect.objectContaining({ option: 'secret' }),
    );
    expect(() => slackWebhook({ url: 'ftp://x' })).toThrow(
      expect.objectContaining({ option: 'url' }),
    );
  });
});
