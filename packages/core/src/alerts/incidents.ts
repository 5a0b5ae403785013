/**
 * @module The incident state machine: per condition and provider, `firing` once when the condition
 * starts to hold and `resolved` once when a poll that could judge it finds it no longer holds,
 * however many polls see it in between. Notices wait in an outbox per notifier until delivered.
 */
import type { Judgement, Observation } from './conditions';
import type { Alert } from './types';

/** An incident in progress. */
interface Incident {
  readonly startedAt: number;
  last: Observation;
}

/** A notice one notifier has not acknowledged yet. */
export interface Undelivered {
  readonly alert: Alert;
  readonly notifier: number;
}

const idOf = (o: Pick<Observation, 'condition' | 'provider'>): string =>
  `${o.condition}:${o.provider ?? '*'}`;

function notice(o: Observation, state: Alert['state'], startedAt: number, at: number): Alert {
  return {
    id: idOf(o),
    state,
    condition: o.condition,
    provider: o.provider,
    value: o.value,
    threshold: o.threshold,
    summary: state === 'firing' ? o.summary : `resolved: ${o.summary}`,
    startedAt: new Date(startedAt),
    at: new Date(at),
  };
}

/** The open incidents and the notices not delivered yet, for `notifiers` notifiers. */
export class Incidents {
  private readonly open = new Map<string, Incident>();
  private outbox: Undelivered[] = [];

  constructor(private readonly notifiers: number) {}

  /** Applies one poll's judgement at `now`; returns the notices it made. */
  apply({ observations, judged }: Judgement, now: number): Alert[] {
    const made: Alert[] = [];
    const holding = new Set<string>();
    for (const o of observations) {
      if (!o.holds) continue;
      const id = idOf(o);
      holding.add(id);
      const incident = this.open.get(id);
      if (incident) {
        incident.last = o;
        continue;
      }
      this.open.set(id, { startedAt: now, last: o });
      made.push(this.queue(notice(o, 'firing', now, now)));
    }
    for (const [id, incident] of this.open) {
      if (holding.has(id) || !judged.has(incident.last.condition)) continue;
      this.open.delete(id);
      made.push(this.resolve(notice(incident.last, 'resolved', incident.startedAt, now)));
    }
    return made;
  }

  private queue(alert: Alert): Alert {
    for (let notifier = 0; notifier < this.notifiers; notifier++)
      this.outbox.push({ alert, notifier });
    return alert;
  }

  /** A notifier never told of the incident is not told it ended: its firing notice is dropped instead. */
  private resolve(alert: Alert): Alert {
    for (let notifier = 0; notifier < this.notifiers; notifier++) {
      const untold = this.outbox.findIndex(
        (u) =>
          u.notifier === notifier &&
          u.alert.id === alert.id &&
          u.alert.state === 'firing' &&
          u.alert.startedAt.getTime() === alert.startedAt.getTime(),
      );
      if (untold >= 0) this.outbox.splice(untold, 1);
      else this.outbox.push({ alert, notifier });
    }
    return alert;
  }

  /** The notices still to deliver, oldest first. */
  undelivered(): readonly Undelivered[] {
    return [...this.outbox];
  }

  /** Marks one notice delivered to its notifier. */
  delivered(entry: Undelivered): void {
    this.outbox = this.outbox.filter((u) => u !== entry);
  }

  /** The incidents firing now, each as its latest figures. */
  firing(now: number): Alert[] {
    return [...this.open.values()].map((i) => notice(i.last, 'firing', i.startedAt, now));
  }
}
