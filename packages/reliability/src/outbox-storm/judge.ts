/**
 * @module The outbox storm's verdict: the database's rows (receipts, business rows, outbox rows)
 * set against the receivers' counts and the provider's answers, event by event, message by
 * message and key by key, and the figures of the run.
 */
import { IdempotencyGuard, InMemoryStore } from '@webhook-idempotency/core';
import { type sendStorm, stormId, type StormCounts } from '../storm/client';
import { STORM_PROVIDER } from '../storm/config';
import type { InjectedFault } from '../storm/faults';
import type { Rows } from '../storm/run';
import {
  DIRECT_EFFECT,
  type DispatcherDeath,
  EMAIL_EFFECT,
  failsForGood,
  HTTP_EFFECT,
} from './config';
import type { Receivers, Tally } from './receivers';

const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value));

/** A death the test planned, and the marker line the process printed (the event id, or where, sender and key). */
export interface Death {
  readonly what: string;
  readonly how: 'in-handler' | DispatcherDeath;
  readonly marker: string;
}

/** What an outbox storm found: every list empty and every count zero for the storm to pass. */
export interface OutboxStormReport {
  readonly counts: StormCounts;
  readonly faults: readonly InjectedFault[];
  /** The deaths inside a run or a send that happened (each process printed where). */
  readonly deaths: readonly Death[];
  readonly crashes: readonly string[];
  readonly problems: {
    /** Events meant to commit whose receipt is not `completed`. */
    readonly notCompleted: string[];
    /** Events that fail for good whose receipt is not `failed`, or whose deliveries were not all refused. */
    readonly notFailed: string[];
    /** Business rows other than one per committed event and none per event that fails for good. */
    readonly businessRows: string[];
    /** Outbox rows other than a `done` row per committed message, and none of an event that fails for good. */
    readonly outboxRows: string[];
    /** Committed messages never accepted by their receiver. */
    readonly lost: string[];
    /** Messages (direct calls included) that arrived under a key other than their effect key, or under more than one. */
    readonly wrongKeys: string[];
    /** Outbox messages of events that fail for good that reached a receiver. */
    readonly sentForRolledBack: string[];
    /** Events whose handler made no direct call (every run makes one). */
    readonly noDirectCall: string[];
    /** Handler runs killed before their commit whose receipt shows no second attempt. */
    readonly notTakenOver: string[];
    /** Messages whose dispatcher died after their receiver accepted them, and that were not sent again. */
    readonly notResent: string[];
  };
  /** Arrivals without a key, without an event, or emails whose Message-ID is not their key's. */
  readonly withoutKey: number;
  readonly unidentified: number;
  readonly messageIdMismatches: number;
  readonly figures: OutboxStormFigures;
  readonly summary: string;
}

/** The run's numbers, for the summary. */
export interface OutboxStormFigures {
  readonly events: number;
  readonly committed: number;
  readonly failingForGood: number;
  readonly reruns: number;
  readonly direct: { requests: number; messages: number; repeats: number };
  readonly http: { requests: number; sent: number; repeats: number };
  readonly email: { requests: number; sent: number; repeats: number };
  readonly refusedOnPurpose: number;
  /** Outbox rows leased more than once (a dispatcher died, a lease ran out, a retry). */
  readonly leasedAgain: number;
  readonly handlerKills: number;
  readonly dispatcherKills: number;
  readonly databaseRestarts: number;
  /** Outbox sends in flight at the receivers when the database was killed. */
  readonly sendsInFlightAtDatabaseKill: number | undefined;
  readonly crashes: number;
  readonly setupMs: number;
  readonly trafficMs: number;
  readonly drainMs: number;
}

/** What a run saw and read back, for {@link judge}. */
export interface Observed {
  readonly traffic: Awaited<ReturnType<typeof sendStorm>>;
  readonly faults: readonly InjectedFault[];
  readonly crashes: readonly string[];
  readonly deaths: readonly Death[];
  readonly inFlightAtKill: number | undefined;
  /** From the start to every process listening or polling. */
  readonly setupMs: number;
  readonly drainMs: number;
  readonly receipts: Rows;
  readonly effects: Rows;
  readonly outboxRows: Rows;
}

/** Sets the database's rows against the receivers' counts and the provider's answers. */
export function judge(
  label: string,
  options: { readonly ids: number; readonly failEvery: number },
  receivers: Receivers,
  seen: Observed,
): OutboxStormReport {
  // The keys every process derives: a guard with the same (no) namespace computes them apart from any run.
  const guard = new IdempotencyGuard(new InMemoryStore());
  const keyOf = (id: string, effect: string) =>
    guard.effectKey({ provider: STORM_PROVIDER, externalId: id }, effect);
  const receipt = new Map(
    seen.receipts.map((r) => [
      text(r.external_id),
      { status: text(r.status), attempts: Number(r.attempts) },
    ]),
  );
  const businessRows = new Map<string, number>();
  for (const row of seen.effects) {
    const id = text(row.event_id);
    businessRows.set(id, (businessRows.get(id) ?? 0) + 1);
  }
  const outbox = new Map(seen.outboxRows.map((r) => [text(r.external_id), r]));
  const problems: OutboxStormReport['problems'] = {
    notCompleted: [],
    notFailed: [],
    businessRows: [],
    outboxRows: [],
    lost: [],
    wrongKeys: [],
    sentForRolledBack: [],
    noDirectCall: [],
    notTakenOver: [],
    notResent: [],
  };
  const keysOf = (tally: Tally) => [...tally.keys.keys()];
  let committed = 0;
  /** The keys of every event's messages: a row under any other key is a stray. */
  const accounted = new Set<string>();
  for (let n = 0; n < options.ids; n++) {
    const id = stormId(n);
    const fails = failsForGood(id, options.failEvery);
    const state = receipt.get(id);
    const rows = businessRows.get(id) ?? 0;
    const record = seen.traffic.perId.get(id);
    const direct = receivers.tally(DIRECT_EFFECT, id);
    if (!direct) problems.noDirectCall.push(id);
    else if (keysOf(direct).join() !== keyOf(id, DIRECT_EFFECT))
      problems.wrongKeys.push(`${DIRECT_EFFECT} ${id}: ${keysOf(direct).join(', ')}`);
    for (const [effect, sender] of [
      [HTTP_EFFECT, 'http'],
      [EMAIL_EFFECT, 'email'],
    ] as const) {
      const key = keyOf(id, effect);
      const tally = receivers.tally(effect, id);
      const row = outbox.get(key);
      accounted.add(key);
      if (fails) {
        if (tally) problems.sentForRolledBack.push(`${effect} ${id} (${tally.requests} arrivals)`);
        if (row)
          problems.outboxRows.push(
            `${effect} ${id}: a row of a run that failed (${text(row.status)})`,
          );
        continue;
      }
      if (!row) problems.outboxRows.push(`${effect} ${id}: no row`);
      else if (text(row.provider) !== sender || text(row.status) !== 'done')
        problems.outboxRows.push(
          `${effect} ${id}: ${text(row.provider)} ${text(row.status)} (${text(row.last_error)})`,
        );
      if (!tally || tally.accepted === 0)
        problems.lost.push(`${effect} ${id} (${tally?.requests ?? 0} arrivals, none accepted)`);
      if (tally && keysOf(tally).join() !== key)
        problems.wrongKeys.push(`${effect} ${id}: ${keysOf(tally).join(', ')} (expected ${key})`);
    }
    if (fails) {
      if (state?.status !== 'failed' || !record || record.refused === 0 || record.ok > 0)
        problems.notFailed.push(
          `${id} (${state?.status ?? 'no receipt'}, refused ${record?.refused ?? 0}, 200s ${record?.ok ?? 0})`,
        );
      if (rows !== 0) problems.businessRows.push(`${id} (fails for good: ${rows} rows)`);
    } else {
      committed++;
      if (state?.status !== 'completed')
        problems.notCompleted.push(`${id} (${state?.status ?? 'no receipt'})`);
      if (rows !== 1) problems.businessRows.push(`${id} (${rows} rows)`);
    }
  }
  for (const [key, row] of outbox)
    if (!accounted.has(key))
      problems.outboxRows.push(`a row of no event's message: ${text(row.provider)} ${key}`);
  const killedInHandler = seen.deaths.filter((d) => d.how === 'in-handler').map((d) => d.marker);
  for (const id of killedInHandler)
    if (!((receipt.get(id)?.attempts ?? 0) >= 2))
      problems.notTakenOver.push(`${id} (attempts ${receipt.get(id)?.attempts})`);
  // A dispatcher that died after its receiver accepted: the message arrived again, with its key.
  const byKey = new Map<string, Tally>();
  for (const tally of receivers.messages.values())
    for (const key of tally.keys.keys()) byKey.set(key, tally);
  for (const { how, marker } of seen.deaths) {
    if (how !== 'mid-send') continue;
    const key = marker.split(' ').at(-1)!;
    const arrivals = byKey.get(key)?.keys.get(key) ?? 0;
    if (arrivals < 2) problems.notResent.push(`${marker} (${arrivals} arrivals)`);
  }

  const sum = (effect: string) => {
    let requests = 0;
    let messages = 0;
    let accepted = 0;
    for (const [name, tally] of receivers.messages)
      if (name.startsWith(`${effect} `)) {
        requests += tally.requests;
        messages++;
        if (tally.accepted > 0) accepted++;
      }
    return { requests, messages, accepted };
  };
  const direct = sum(DIRECT_EFFECT);
  const http = sum(HTTP_EFFECT);
  const email = sum(EMAIL_EFFECT);
  const c = seen.traffic.counts;
  const count = (word: string) => seen.faults.filter((f) => f.what.includes(word)).length;
  const figures: OutboxStormFigures = {
    events: options.ids,
    committed,
    failingForGood: options.ids - committed,
    reruns: seen.receipts.filter((r) => Number(r.attempts) > 1).length,
    direct: {
      requests: direct.requests,
      messages: direct.messages,
      repeats: direct.requests - direct.messages,
    },
    http: { requests: http.requests, sent: http.accepted, repeats: http.requests - http.messages },
    email: {
      requests: email.requests,
      sent: email.accepted,
      repeats: email.requests - email.messages,
    },
    refusedOnPurpose: receivers.refused,
    leasedAgain: seen.outboxRows.filter((r) => Number(r.attempts) > 1).length,
    handlerKills: count('handler'),
    dispatcherKills: count('dispatcher'),
    databaseRestarts: count('mid-dispatch'),
    sendsInFlightAtDatabaseKill: seen.inFlightAtKill,
    crashes: seen.crashes.length,
    setupMs: seen.setupMs,
    trafficMs: seen.traffic.durationMs,
    drainMs: seen.drainMs,
  };
  const summary =
    `outbox storm ${label}: ${figures.events} events (${figures.committed} committed, ${figures.failingForGood} failing for good), ` +
    `${c.deliveries} deliveries: 200s ${c.ok200} (replays ${c.replayed200}), refused on purpose ${c.refused}, 409s ${c.s409}, 503s ${c.s503}, other 5xx ${c.other5xx}, unexpected ${c.unexpected}, timeouts ${c.timeouts}, gave up ${c.gaveUp}; ` +
    `receipts run more than once ${figures.reruns}; ` +
    `direct calls ${direct.requests} for ${direct.messages} events (repeats ${figures.direct.repeats}, one key each); ` +
    `outbox HTTP sent ${http.accepted} of ${committed} in ${http.requests} requests (repeats ${figures.http.repeats}); ` +
    `email sent ${email.accepted} of ${committed} in ${email.requests} mails (repeats ${figures.email.repeats}); ` +
    `refused once on purpose by the receivers ${figures.refusedOnPurpose}, rows leased more than once ${figures.leasedAgain}; ` +
    `kills: handlers ${figures.handlerKills} (in a run: ${killedInHandler.join(', ') || 'none'}), dispatchers ${figures.dispatcherKills} (${
      seen.deaths
        .filter((d) => d.how !== 'in-handler')
        .map((d) => d.marker)
        .join('; ') || 'from outside only'
    }), ` +
    `database restarts ${figures.databaseRestarts}${figures.sendsInFlightAtDatabaseKill === undefined ? '' : ` (${figures.sendsInFlightAtDatabaseKill} sends in flight)`}; ` +
    `crashes ${figures.crashes}; setup ${(figures.setupMs / 1000).toFixed(1)} s, traffic ${(figures.trafficMs / 1000).toFixed(1)} s, drain ${(figures.drainMs / 1000).toFixed(1)} s`;
  return {
    counts: c,
    faults: seen.faults,
    deaths: seen.deaths,
    crashes: seen.crashes,
    problems,
    withoutKey: receivers.withoutKey,
    unidentified: receivers.unidentified,
    messageIdMismatches: receivers.messageIdMismatches,
    figures,
    summary,
  };
}
