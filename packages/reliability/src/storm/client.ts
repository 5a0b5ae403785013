/**
 * @module The storm's provider: sends every delivery of a plan to the app servers over keep-alive
 * connections with a fixed number in flight, retries as a webhook provider does (409/503 after
 * `Retry-After`, capped; other 5xx and connection failures on another server), and records every
 * answer per delivery id.
 */
import http from 'node:http';

/** Size and pacing of one storm. */
export interface StormPlan {
  /** Distinct delivery ids. */
  readonly ids: number;
  /** Deliveries of each id (the provider's redeliveries). */
  readonly perId: number;
  /** Requests in flight at once. */
  readonly inFlight: number;
  /** Upper bound on a `Retry-After` wait, in ms (keeps the run short; the servers ask for up to `staleAfterSeconds`). */
  readonly retryAfterCapMs: number;
  /** A request without an answer after this long is abandoned (counted) and sent to another server. */
  readonly requestTimeoutMs: number;
  /** A delivery still without a final answer after this long is given up (counted; fails the run). */
  readonly giveUpAfterMs: number;
  /** Seed of the delivery order. */
  readonly seed: number;
  /**
   * The app's answer to a run it fails on purpose (a handler that throws every time): a delivery
   * answered so is over, counted in `refused` and in its id's record, not retried (the provider's
   * next deliveries of the id are the plan's other deliveries). Without it every 5xx but 503 is
   * retried and counted in `other5xx`.
   */
  readonly refusal?: { readonly status: number; readonly code: string };
}

/** Everything the client saw for one delivery id. */
export interface IdRecord {
  /** Body of the first 200 received for the id. */
  first?: Buffer;
  /** 200 answers without `Idempotent-Replayed: true` (handler runs whose answer reached the client). */
  firstRuns: number;
  /** 200 answers whose body differs from `first`. */
  mismatches: number;
  ok: number;
  /** Deliveries answered with the plan's `refusal`. */
  refused: number;
}

/** Counters of a storm run. */
export interface StormCounts {
  deliveries: number;
  requests: number;
  ok200: number;
  replayed200: number;
  s409: number;
  /** All 503 answers (the guard's and the app's own). */
  s503: number;
  /** 503 answers of the app's error handler for its own failed business write (subset of `s503`). */
  s503App: number;
  other5xx: number;
  /** Deliveries answered with the plan's `refusal` (a run failed on purpose). */
  refused: number;
  /** Statuses a webhook provider would not retry (4xx but 409, 2xx but 200, …): never expected. */
  unexpected: number;
  connectionErrors: number;
  timeouts: number;
  retries: number;
  gaveUp: number;
  /** A few of the other-5xx / unexpected answers and give-ups, for the report. */
  samples: string[];
}

/** What {@link sendStorm} returns. */
export interface StormTraffic {
  readonly counts: StormCounts;
  readonly perId: ReadonlyMap<string, IdRecord>;
  readonly durationMs: number;
}

const SAMPLE_LIMIT = 12;

/** A small seeded PRNG (mulberry32): the delivery order is reproducible from the seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The id of delivery id number `n`. */
export const stormId = (n: number): string => `evt_${String(n).padStart(6, '0')}`;

/**
 * The delivery order: id by id, then each delivery swapped with a random one up to `window`
 * places later, so the copies of one id arrive close together (they meet each other's fresh
 * claims: 409s, replays) without arriving in lockstep.
 */
export function deliveryOrder(
  plan: Pick<StormPlan, 'ids' | 'perId' | 'seed'>,
  window = 160,
): string[] {
  const order: string[] = [];
  for (let n = 0; n < plan.ids; n++) for (let k = 0; k < plan.perId; k++) order.push(stormId(n));
  const next = random(plan.seed);
  for (let i = 0; i < order.length; i++) {
    const j = Math.min(order.length - 1, i + Math.floor(next() * window));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

class RequestTimeout extends Error {}

function post(
  agent: http.Agent,
  port: number,
  id: string,
  body: Buffer,
  timeoutMs: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/webhook',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'x-delivery-id': id,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('aborted', () => fail(new Error('response aborted')));
        response.on('end', () => {
          if (settled) return;
          if (!response.complete) return fail(new Error('response incomplete'));
          settled = true;
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          });
        });
      },
    );
    request.setTimeout(timeoutMs, () => {
      const error = new RequestTimeout(`no answer within ${timeoutMs} ms`);
      fail(error);
      request.destroy(error);
    });
    request.on('error', fail);
    request.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Holds the deliveries from `from` (an index in the delivery order) on until `until` settles: the
 * run's faults have all begun while fresh ids are still to come (a fault that needs a first run,
 * the kill inside a handler, always meets one however late a slow restart let it begin).
 */
export interface StormHold {
  readonly from: number;
  readonly until: Promise<void>;
}

/**
 * Sends `plan.ids × plan.perId` deliveries to the servers on `ports` and returns what came back.
 * `onProgress` gets the number of deliveries finished so far (answered 200, or given up).
 */
export async function sendStorm(
  ports: readonly number[],
  plan: StormPlan,
  onProgress: (finished: number) => void,
  hold?: StormHold,
): Promise<StormTraffic> {
  const order = deliveryOrder(plan);
  const agents = ports.map(() => new http.Agent({ keepAlive: true, maxSockets: plan.inFlight }));
  const counts: StormCounts = {
    deliveries: order.length,
    requests: 0,
    ok200: 0,
    replayed200: 0,
    s409: 0,
    s503: 0,
    s503App: 0,
    other5xx: 0,
    refused: 0,
    unexpected: 0,
    connectionErrors: 0,
    timeouts: 0,
    retries: 0,
    gaveUp: 0,
    samples: [],
  };
  const perId = new Map<string, IdRecord>();
  const sample = (text: string) => {
    if (counts.samples.length < SAMPLE_LIMIT) counts.samples.push(text);
  };
  const started = Date.now();
  let nextIndex = 0;
  let finished = 0;

  const deliver = async (index: number): Promise<void> => {
    const id = order[index]!;
    // The same bytes on every delivery of an id (the fingerprint): derived from the id only.
    const payload = Buffer.from(
      JSON.stringify({ id, type: 'payment.succeeded', amount: 1000 + (Number(id.slice(4)) % 97) }),
    );
    let record = perId.get(id);
    if (!record) {
      record = { firstRuns: 0, mismatches: 0, ok: 0, refused: 0 };
      perId.set(id, record);
    }
    const began = Date.now();
    let server = index % ports.length;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) counts.retries++;
      if (Date.now() - began > plan.giveUpAfterMs) {
        counts.gaveUp++;
        sample(`${id}: gave up after ${attempt} attempts`);
        return;
      }
      counts.requests++;
      let answer: Answer;
      try {
        answer = await post(agents[server]!, ports[server]!, id, payload, plan.requestTimeoutMs);
      } catch (error) {
        if (error instanceof RequestTimeout) {
          counts.timeouts++;
          sample(`${id}: server ${server} ${error.message}`);
        } else counts.connectionErrors++;
        server = (server + 1) % ports.length;
        await sleep(20);
        continue;
      }
      const { status } = answer;
      if (status === 200) {
        counts.ok200++;
        record.ok++;
        if (answer.headers['idempotent-replayed'] === 'true') counts.replayed200++;
        else record.firstRuns++;
        if (!record.first) record.first = answer.body;
        else if (!record.first.equals(answer.body)) {
          record.mismatches++;
          sample(
            `${id}: replay differs: ${record.first.toString('utf8')} vs ${answer.body.toString('utf8')}`,
          );
        }
        return;
      }
      if (status === 409 || status === 503) {
        if (status === 409) counts.s409++;
        else {
          counts.s503++;
          if (answer.body.includes('APP_BUSINESS_WRITE_FAILED')) counts.s503App++;
        }
        const seconds = Number(answer.headers['retry-after']);
        const wait =
          Number.isFinite(seconds) && seconds > 0
            ? Math.min(seconds * 1000, plan.retryAfterCapMs)
            : 50;
        await sleep(wait);
        server = (server + 1) % ports.length;
        continue;
      }
      if (
        plan.refusal &&
        status === plan.refusal.status &&
        answer.body.includes(plan.refusal.code)
      ) {
        counts.refused++;
        record.refused++;
        return;
      }
      if (status >= 500) {
        counts.other5xx++;
        sample(
          `${id}: ${status} from server ${server}: ${answer.body.toString('utf8').slice(0, 300)}`,
        );
        await sleep(100);
        server = (server + 1) % ports.length;
        continue;
      }
      counts.unexpected++;
      sample(`${id}: unexpected ${status}: ${answer.body.toString('utf8').slice(0, 300)}`);
      return;
    }
  };

  const lane = async (): Promise<void> => {
    while (nextIndex < order.length) {
      const index = nextIndex++;
      if (hold && index >= hold.from) await hold.until;
      await deliver(index);
      finished++;
      onProgress(finished);
    }
  };
  try {
    await Promise.all(Array.from({ length: plan.inFlight }, lane));
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return { counts, perId, durationMs: Date.now() - started };
}
