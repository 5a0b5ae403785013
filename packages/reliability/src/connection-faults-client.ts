/** @module The connection-fault tests' HTTP client: one delivery on a fresh connection with a hard timeout, redelivery until 200, and what counts as an acceptable answer under a fault. */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One answer as the client saw it, or why there was none (`'timeout'`: nothing within the client's timeout). */
export type Delivery =
  | {
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      readonly body: string;
      readonly ms: number;
    }
  | { readonly status: 'timeout' | 'transport-error'; readonly error: string; readonly ms: number };

/** POSTs one delivery of `id` (a fixed JSON body) on a fresh connection; gives up after `timeoutMs`. */
export function deliver(baseUrl: string, id: string, timeoutMs: number): Promise<Delivery> {
  const started = Date.now();
  const body = JSON.stringify({ id, kind: 'order.paid' });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (delivery: Delivery) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(delivery);
    };
    const req = httpRequest(
      `${baseUrl}/hooks/${encodeURIComponent(id)}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          settle({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: Date.now() - started,
          }),
        );
        res.on('error', (error) =>
          settle({ status: 'transport-error', error: error.message, ms: Date.now() - started }),
        );
      },
    );
    const timer = setTimeout(() => {
      settle({
        status: 'timeout',
        error: `no answer within ${timeoutMs} ms`,
        ms: Date.now() - started,
      });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) =>
      settle({ status: 'transport-error', error: error.message, ms: Date.now() - started }),
    );
    req.end(body);
  });
}

/**
 * Delivers `id` again and again, `pauseMs` apart, until a 200, an answer that is not 409/503, or
 * `deadlineMs` has passed; returns every answer in order.
 */
export async function deliverUntilOk(
  baseUrl: string,
  id: string,
  { timeoutMs, deadlineMs, pauseMs }: { timeoutMs: number; deadlineMs: number; pauseMs: number },
): Promise<Delivery[]> {
  const until = Date.now() + deadlineMs;
  const answers: Delivery[] = [];
  for (;;) {
    const answer = await deliver(baseUrl, id, timeoutMs);
    answers.push(answer);
    if (answer.status !== 409 && answer.status !== 503) return answers;
    if (Date.now() > until) return answers;
    await sleep(pauseMs);
  }
}

/** A short text for one answer, for failure messages: `503 (Retry-After 1) {"code":…}`. */
export function describeDelivery(delivery: Delivery): string {
  if (typeof delivery.status !== 'number')
    return `${delivery.status} after ${delivery.ms} ms: ${(delivery as { error: string }).error}`;
  const answer = delivery as Extract<Delivery, { status: number }>;
  const retry =
    answer.headers['retry-after'] === undefined
      ? ''
      : ` (Retry-After ${String(answer.headers['retry-after'])})`;
  return `${answer.status}${retry} in ${answer.ms} ms ${answer.body.slice(0, 200)}`;
}

/**
 * What is wrong with `delivery` as an answer to a delivery of `id` under a database fault: only
 * a 200 carrying the handler's body or a 409/503 with `Retry-After` is acceptable. Returns
 * `undefined` when it is acceptable.
 */
export function unacceptable(delivery: Delivery, id: string): string | undefined {
  if (typeof delivery.status !== 'number') return describeDelivery(delivery);
  const answer = delivery as Extract<Delivery, { status: number }>;
  if (answer.status === 200) {
    try {
      const body = JSON.parse(answer.body) as { id?: unknown; ok?: unknown };
      if (body.id === id && body.ok === true) return undefined;
    } catch {
      // reported below
    }
    return `200 with the wrong body: ${answer.body.slice(0, 200)}`;
  }
  if (
    (answer.status === 409 || answer.status === 503) &&
    answer.headers['retry-after'] !== undefined
  )
    return undefined;
  return describeDelivery(delivery);
}
