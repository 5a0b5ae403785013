/** @module The alert watcher's vocabulary: conditions, alerts, notifiers, what it reads and what it reports. */
import type { InboxStore } from '../inbox/inbox-store';

/** What the watcher checks on every poll. */
export const AlertCondition = {
  /** Inbox deliveries received longer ago than their provider's threshold and not finished yet (per provider). */
  STUCK: 'stuck',
  /** Inbox deliveries that died (their failures ran out) within the dead-letter window (per provider). */
  DEAD_LETTERS: 'dead-letters',
  /** Receipts `processing` for longer than `staleAfterMs`: a worker died mid-run (per provider). */
  STUCK_CLAIMS: 'stuck-claims',
  /** The share of receipts that finished `failed` in the window, over every provider. */
  FAILURE_RATE: 'failure-rate',
  /** The 95th percentile of the receipts' time from claim to recorded answer in the window, over every provider. */
  SLOW_ANSWERS: 'slow-answers',
} as const;
/** One of {@link AlertCondition}. */
export type AlertCondition = (typeof AlertCondition)[keyof typeof AlertCondition];

/**
 * One notice about an incident: `firing` once when a condition starts to hold, `resolved` once
 * when it stops. A notifier never gets the same notice twice for one incident (unless sending it
 * failed, and then it is sent again on the next poll).
 */
export interface Alert {
  /** The incident's condition and provider, stable for the incident: `stuck:stripe`, `failure-rate:*`. */
  readonly id: string;
  readonly state: 'firing' | 'resolved';
  readonly condition: AlertCondition;
  /** The provider, or `null` for a condition over every provider. */
  readonly provider: string | null;
  /** The figure the condition judged: a count, a share (0 to 1) or milliseconds; on `resolved`, the last value seen while firing. */
  readonly value: number;
  /** The threshold it was judged against, in the same unit. */
  readonly threshold: number;
  /** One line for a human: what, where, how much. */
  readonly summary: string;
  /** When the watcher first saw the condition hold (this process's clock). */
  readonly startedAt: Date;
  /** When this notice was made. */
  readonly at: Date;
}

/** What a notifier gets with each alert: abort what you send when `signal` aborts (the send's time bound, or `stop()`). */
export interface NotifyContext {
  readonly signal: AbortSignal;
}

/**
 * Delivers one alert somewhere (Slack, a pager, a log). Resolve once delivered; reject (or throw)
 * when it was not, and the watcher sends it again on its next poll. It never runs on the webhook
 * path: the watcher calls it after its reads, with a time bound.
 */
export type Notifier = (alert: Alert, context: NotifyContext) => Promise<void> | void;

/**
 * What the watcher reads of the receipts: `ReceiptsAdmin.status` from `@webhook-idempotency/sql`
 * has this shape (the dashboard's receipts too).
 */
export interface ReceiptsStatusSource {
  status(options: { readonly staleAfterMs: number; readonly sinceMs: number }): Promise<{
    readonly providers: ReadonlyArray<{ readonly provider: string; readonly stuck: number }>;
    readonly window: {
      readonly completed: number;
      readonly failed: number;
      readonly handlerTime: { readonly p95Ms: number; readonly sampled: number } | null;
    };
  }>;
}

/** The failure-rate condition: fires when more than `above` of the receipts finished in `windowMs` failed. */
export interface FailureRateRule {
  /** A share from 0 to 1. Defaults to 0.1. */
  readonly above?: number;
  /** Defaults to 15 minutes. One read serves both receipt rules: the longer of their windows is used. */
  readonly windowMs?: number;
  /** Fewer finished receipts than this in the window judge nothing (one failure of two is no rate). Defaults to 20. */
  readonly minFinished?: number;
}

/** The slow-answers condition: fires when the p95 time from claim to recorded answer in `windowMs` passes `p95AboveMs`. */
export interface SlowAnswerRule {
  /** Defaults to 1000 ms. */
  readonly p95AboveMs?: number;
  /** Defaults to 15 minutes. */
  readonly windowMs?: number;
  /** Fewer completed receipts than this in the window judge nothing. Defaults to 20. */
  readonly minSampled?: number;
}

/** Options of {@link createAlertWatcher}. At least one of `inbox` and `receipts`, and `notify`, are required. */
export interface AlertWatcherOptions {
  /** The inbox to watch: stuck deliveries and new dead letters (`InboxStore.backlog`). */
  inbox?: InboxStore;
  /** The receipts to watch: stuck claims, failure rate, slow answers (`new ReceiptsAdmin(db)`). */
  receipts?: ReceiptsStatusSource;
  /** Where alerts go: a notifier or several (`slackWebhook(…)`, `signedWebhook(…)`, your own). */
  notify: Notifier | readonly Notifier[];
  /** Milliseconds between checks. Defaults to 60 000; at least 1000. */
  intervalMs?: number;
  /** How long an inbox delivery may stay unfinished after its receipt before it is stuck. Defaults to 5 minutes. */
  stuckAfterMs?: number;
  /** The same per provider (`{ shopify: 900_000 }`); the others take `stuckAfterMs`. */
  stuckAfterMsByProvider?: Readonly<Record<string, number>>;
  /** A dead letter is "new" for this long after it died: the dead-letter incident lasts until none died within it. Defaults to 15 minutes. */
  deadWithinMs?: number;
  /** Age past which a `processing` receipt is a stuck claim: your guard's `staleAfterSeconds` × 1000. Defaults to 5 minutes. */
  staleAfterMs?: number;
  /** The failure-rate condition's thresholds, or `false` to not check it. */
  failureRate?: FailureRateRule | false;
  /** The slow-answers condition's thresholds, or `false` to not check it. */
  slowAnswers?: SlowAnswerRule | false;
  /** The time bound of one notifier call, in milliseconds. Defaults to 10 000. */
  sendTimeoutMs?: number;
  /** Reports what happened without throwing: checks that failed, notices sent or not. Errors it throws are ignored. */
  onEvent?: (event: WatcherEvent) => void;
  /** This process's clock (for tests). Defaults to `Date.now`. */
  now?: () => number;
}

/** What the watcher reports through `onEvent`. */
export type WatcherEvent =
  /** A read of the inbox or the receipts failed: nothing changed state this poll. */
  | {
      readonly type: 'check-failed';
      readonly source: 'inbox' | 'receipts';
      readonly error: unknown;
    }
  /** A notifier delivered a notice. */
  | { readonly type: 'notified'; readonly alert: Alert; readonly notifier: number }
  /** A notifier failed or ran out of time: the notice is sent again on the next poll. */
  | {
      readonly type: 'notify-failed';
      readonly alert: Alert;
      readonly notifier: number;
      readonly error: unknown;
    };

/** A running (or stopped) watcher. */
export interface AlertWatcher {
  /** Checks now, then every `intervalMs`, on timers that never keep the process alive. */
  start(): void;
  /** Stops polling, aborts the notices being sent, and resolves once the check in flight has ended. */
  stop(): Promise<void>;
  /** One check and its notices; resolves with the notices made (sent or not). Waits for a check already running instead of starting a second. */
  checkOnce(): Promise<readonly Alert[]>;
  /** The incidents firing now. */
  readonly firing: readonly Alert[];
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
}
