/**
 * @module One poll's reads (the inbox's backlog, the receipts' status) turned into observations:
 * for each condition and provider, the figure, its threshold and whether the condition holds.
 * The reads end before any notice is sent: no connection is held while a notifier waits.
 */
import type { WatcherSettings } from './options';
import { AlertCondition } from './types';

/** One condition judged for one provider (`null`: over every provider). */
export interface Observation {
  readonly condition: AlertCondition;
  readonly provider: string | null;
  readonly value: number;
  readonly threshold: number;
  readonly holds: boolean;
  readonly summary: string;
}

/** What one poll judged: its observations, and the conditions whose source could be read. */
export interface Judgement {
  readonly observations: readonly Observation[];
  readonly judged: ReadonlySet<AlertCondition>;
}

const seconds = (ms: number): string =>
  ms >= 3_600_000
    ? `${(ms / 3_600_000).toFixed(1)} h`
    : ms >= 60_000
      ? `${Math.round(ms / 60_000)} min`
      : `${Math.round(ms / 1000)} s`;

async function inboxObservations(settings: WatcherSettings): Promise<Observation[]> {
  const { inbox, stuckAfterMs, stuckAfterMsByProvider, deadWithinMs } = settings;
  if (!inbox) return [];
  const backlog = await inbox.backlog({
    stuckAfterMs,
    stuckAfterMsByProvider,
    finishedWithinMs: deadWithinMs,
  });
  return backlog.providers.flatMap((p) => {
    const threshold = stuckAfterMsByProvider[p.provider] ?? stuckAfterMs;
    return [
      {
        condition: AlertCondition.STUCK,
        provider: p.provider,
        value: p.stuck,
        threshold,
        holds: p.stuck > 0,
        summary: `${p.stuck} ${p.provider} deliveries unfinished for more than ${seconds(threshold)} (oldest ${seconds(p.oldestAgeMs ?? 0)}, ${p.unfinished} unfinished)`,
      },
      {
        condition: AlertCondition.DEAD_LETTERS,
        provider: p.provider,
        value: p.died,
        threshold: 0,
        holds: p.died > 0,
        summary: `${p.died} ${p.provider} deliveries died in the last ${seconds(deadWithinMs)}: their handler failed every attempt`,
      },
    ];
  });
}

/** The receipts' conditions from one `status` read, over the longer of the two rules' windows. */
async function receiptObservations(settings: WatcherSettings): Promise<Observation[]> {
  const { receipts, staleAfterMs, failureRate, slowAnswers } = settings;
  if (!receipts) return [];
  const sinceMs = Math.max(failureRate?.windowMs ?? 0, slowAnswers?.windowMs ?? 0) || 60_000;
  const status = await receipts.status({ staleAfterMs, sinceMs });
  const observations: Observation[] = status.providers.map((p) => ({
    condition: AlertCondition.STUCK_CLAIMS,
    provider: p.provider,
    value: p.stuck,
    threshold: 0,
    holds: p.stuck > 0,
    summary: `${p.stuck} ${p.provider} receipts processing for more than ${seconds(staleAfterMs)}: a worker died mid-run`,
  }));
  const { completed, failed, handlerTime } = status.window;
  if (failureRate) {
    const finished = completed + failed;
    const share = finished === 0 ? 0 : failed / finished;
    observations.push({
      condition: AlertCondition.FAILURE_RATE,
      provider: null,
      value: share,
      threshold: failureRate.above,
      holds: finished >= failureRate.minFinished && share > failureRate.above,
      summary: `${(share * 100).toFixed(1)} % of the ${finished} receipts finished in the last ${seconds(sinceMs)} failed (threshold ${(failureRate.above * 100).toFixed(1)} %)`,
    });
  }
  if (slowAnswers) {
    const p95 = handlerTime?.p95Ms ?? 0;
    observations.push({
      condition: AlertCondition.SLOW_ANSWERS,
      provider: null,
      value: p95,
      threshold: slowAnswers.p95AboveMs,
      holds: (handlerTime?.sampled ?? 0) >= slowAnswers.minSampled && p95 > slowAnswers.p95AboveMs,
      summary: `p95 time from claim to recorded answer ${Math.round(p95)} ms over the last ${seconds(sinceMs)} (threshold ${slowAnswers.p95AboveMs} ms)`,
    });
  }
  return observations;
}

/** Both reads, side by side; a source that fails is reported and judges nothing this poll. */
export async function judge(settings: WatcherSettings): Promise<Judgement> {
  const judged = new Set<AlertCondition>();
  const observations: Observation[] = [];
  const [inbox, receipts] = await Promise.allSettled([
    inboxObservations(settings),
    receiptObservations(settings),
  ]);
  if (inbox.status === 'fulfilled') {
    observations.push(...inbox.value);
    if (settings.inbox)
      for (const c of [AlertCondition.STUCK, AlertCondition.DEAD_LETTERS]) judged.add(c);
  } else settings.emit({ type: 'check-failed', source: 'inbox', error: inbox.reason });
  if (receipts.status === 'fulfilled') {
    observations.push(...receipts.value);
    if (settings.receipts) {
      judged.add(AlertCondition.STUCK_CLAIMS);
      if (settings.failureRate) judged.add(AlertCondition.FAILURE_RATE);
      if (settings.slowAnswers) judged.add(AlertCondition.SLOW_ANSWERS);
    }
  } else settings.emit({ type: 'check-failed', source: 'receipts', error: receipts.reason });
  return { observations, judged };
}
