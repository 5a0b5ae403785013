/**
 * @module What the adapter cases share: the checks of a replay, and a handler held while it runs
 * (to send a duplicate during the run).
 */
import { type CaseHandler, gate, type Harness, jsonAnswer } from '../harness';

/** The answer to a POST of the harness. */
type Posted = Awaited<ReturnType<Harness['post']>>;

/** An answer as the cases read it, from supertest or a fetch. */
interface Answered {
  readonly status: number;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body: Buffer;
}

/**
 * Expects `again` to be the replay of `first`: `status` (200 by default), `Idempotent-Replayed:
 * true`, the same content-type and the same body byte for byte.
 */
export function expectReplay(again: Answered, first: Answered, status = 200): void {
  expect(again.status).toBe(status);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.headers['content-type']).toBe(first.headers['content-type']);
  expect(Buffer.compare(again.body, first.body)).toBe(0);
}

/**
 * Starts the app with `options` and a handler waiting at a gate, POSTs `id` and resolves once the
 * handler runs: the first delivery in flight (`first`), and `letAnswer()` to open the gate.
 */
export async function inFlight(
  h: Harness,
  id: string,
  options: Parameters<Harness['start']>[0] = {},
): Promise<{ readonly first: Promise<Posted>; letAnswer(): void }> {
  const gated = gatedHandler();
  await h.start(options, gated.handler);
  const first = h.post(id).then((res) => res);
  await gated.started;
  return { first, letAnswer: gated.letAnswer };
}

/** A handler that, once started, waits for `letAnswer()` before it answers as `answer` does. */
export function gatedHandler(answer: CaseHandler = jsonAnswer) {
  const answering = gate();
  const started = gate();
  const handler: CaseHandler = async (call, n) => {
    started.open();
    await answering.promise;
    return answer(call, n);
  };
  return { handler, started: started.promise, letAnswer: answering.open };
}
