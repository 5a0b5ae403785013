/**
 * @module What the adapter cases share: the checks of a replay and of a preset's handshake, and a
 * handler held while it runs (to send a duplicate during the run).
 */
import type { ProviderPreset } from '@webhook-idempotency/core';
import type { AdapterCase } from '../case';
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

/** A preset's handshake as a case sends it: the forged copy, the genuine one, and what answers it. */
export interface HandshakeExchange {
  forged(): PromiseLike<Answered>;
  genuine(): PromiseLike<Answered>;
  /** The body the preset answers the genuine handshake with. */
  readonly answer: string;
  /** The status the forged copy gets. */
  readonly forgedStatus: number;
  /** The external id a receipt of the handshake would have (none must be left). */
  readonly externalId: string;
}

/**
 * Starts the app with `preset` and expects it to answer its handshake itself: the forged copy
 * refused (`forgedStatus`, not given the answer), the genuine one answered 200 with the answer;
 * neither runs the handler nor leaves a receipt.
 */
export async function expectHandshake(
  h: Harness,
  preset: ProviderPreset,
  exchange: HandshakeExchange,
): Promise<void> {
  await h.start({ preset });
  const forged = await exchange.forged();
  expect(forged.status).toBe(exchange.forgedStatus);
  expect(forged.body.toString()).not.toBe(exchange.answer);
  const res = await exchange.genuine();
  expect(res.status).toBe(200);
  expect(res.body.toString()).toBe(exchange.answer);
  expect(h.calls()).toBe(0);
  const key = { provider: preset.provider, externalId: exchange.externalId };
  expect(await h.guard.find(key)).toBeNull();
}

/** The case of a preset's handshake ({@link expectHandshake}), on every store; `exchange` is built as it runs. */
export function handshakeCase(
  group: string,
  name: string,
  preset: () => ProviderPreset,
  exchange: (h: Harness) => HandshakeExchange,
): AdapterCase {
  return { group, anyStore: true, name, run: (h) => expectHandshake(h, preset(), exchange(h)) };
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
