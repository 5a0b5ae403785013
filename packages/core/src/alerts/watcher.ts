/**
 * @module `createAlertWatcher`: alerts without Prometheus. Polls the inbox and the receipts on an
 * interval (timers that never keep the process alive), judges the conditions, and sends each
 * incident's `firing` and `resolved` notices once to the user's notifiers, each call bounded in
 * time. It shares nothing with the webhook path but the database, and holds no connection while
 * it sends: a notifier that hangs or fails delays nothing but its own next notice.
 */
import { judge } from './conditions';
import { Incidents, type Undelivered } from './incidents';
import { resolveWatcherOptions, type WatcherSettings } from './options';
import { boundedSignal } from './post';
import type { Alert, AlertWatcher, AlertWatcherOptions } from './types';

/** Calls the notifier, settling when it does or when `signal` aborts, whichever comes first. */
async function callBounded(
  settings: WatcherSettings,
  entry: Undelivered,
  parent: AbortSignal,
): Promise<void> {
  const { signal, clear } = boundedSignal(parent, settings.sendTimeoutMs);
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const notifier = settings.notifiers[entry.notifier]!;
    await Promise.race([Promise.resolve().then(() => notifier(entry.alert, { signal })), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    clear();
  }
}

/**
 * Starts nothing until `start()`. Checks, on every poll: inbox deliveries stuck past their
 * provider's threshold, new dead letters, receipts stuck in `processing`, the receipts' failure
 * rate and their p95 time from claim to recorded answer (docs/operations.md). Each incident (a
 * condition for a provider) is notified once when it starts and once when it ends; a notice that
 * could not be delivered is tried again on the next poll.
 *
 * @example
 * const watcher = createAlertWatcher({
 *   inbox: new SqlInbox(pool),
 *   receipts: new ReceiptsAdmin(pool),
 *   notify: slackWebhook({ url: process.env.SLACK_WEBHOOK_URL! }),
 *   onEvent: (event) => event.type !== 'notified' && log.warn(event),
 * });
 * watcher.start();
 * @throws {ConfigError} naming the first invalid, missing or unknown option.
 * @see docs/operations.md
 */
export function createAlertWatcher(options: AlertWatcherOptions): AlertWatcher {
  const settings = resolveWatcherOptions(options);
  const incidents = new Incidents(settings.notifiers.length);
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<readonly Alert[]> | undefined;
  let sending = new AbortController();

  const deliver = async (entry: Undelivered, signal: AbortSignal): Promise<void> => {
    try {
      await callBounded(settings, entry, signal);
      incidents.delivered(entry);
      settings.emit({ type: 'notified', alert: entry.alert, notifier: entry.notifier });
    } catch (error) {
      settings.emit({ type: 'notify-failed', alert: entry.alert, notifier: entry.notifier, error });
    }
  };
  const check = async (): Promise<readonly Alert[]> => {
    if (!running && sending.signal.aborted) sending = new AbortController(); // a check by hand after stop()
    const signal = sending.signal;
    const made = incidents.apply(await judge(settings), settings.now());
    await Promise.all(incidents.undelivered().map((entry) => deliver(entry, signal)));
    return made;
  };
  const checkOnce = (): Promise<readonly Alert[]> => {
    inFlight ??= check().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const tick = (): void => {
    void checkOnce().finally(() => {
      if (!running) return;
      timer = setTimeout(tick, settings.intervalMs);
      timer.unref?.();
    });
  };

  return {
    start() {
      if (running) return;
      running = true;
      sending = new AbortController();
      tick();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      sending.abort(new Error('the alert watcher was stopped'));
      await inFlight?.catch(() => undefined);
    },
    checkOnce,
    get firing() {
      return incidents.firing(settings.now());
    },
    get running() {
      return running;
    },
  };
}
