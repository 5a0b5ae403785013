/**
 * @module What routing by event type and Standard Schema validation cost per delivery, next to the
 * plain guard, through the HTTP engine with the in-memory store (no server, no database: the
 * difference is the routing itself). Rows: the plain guard (the adapter's handler answers), a route
 * set's routed event, the same with a zod schema, and an ignored event (no route: nothing claimed).
 * `pnpm --filter @webhook-idempotency/benchmarks run bench:routes [deliveries]`.
 */
import { type HttpRequest, InMemoryStore, type ProviderPreset } from '@webhook-idempotency/core';
import { createEngine } from '@webhook-idempotency/core/adapter';
import { type EventPreset, routes, validated } from '@webhook-idempotency/core/routes';
import { z } from 'zod';

const preset: EventPreset = {
  provider: 'bench',
  key: (request) => JSON.parse(String(request.rawBody)).id,
  eventType: (request) => JSON.parse(String(request.rawBody)).type,
  needsRawBody: true,
  retentionDays: 7,
};

const Paid = z.object({ id: z.string(), type: z.string(), data: z.object({ cents: z.number() }) });
const ANSWER = { status: 200, headers: {}, body: Buffer.from('{"received":true}') };

function request(i: number, type: string): HttpRequest {
  const rawBody = Buffer.from(JSON.stringify({ id: `evt_${i}`, type, data: { cents: i } }));
  return { method: 'POST', url: '/hook', headers: {}, rawBody, body: undefined, native: {} };
}

/** µs per delivery of `n` first deliveries of `type` through an engine on `chosen`. */
async function perDelivery(chosen: ProviderPreset, type: string, n: number): Promise<number> {
  const engine = createEngine({ store: new InMemoryStore(), preset: chosen });
  const requests = Array.from({ length: n }, (_, i) => request(i, type));
  const started = performance.now();
  for (const one of requests) {
    const decision = await engine.begin(one);
    // The plain guard: the adapter's handler answers and the run records it.
    if (decision.action === 'run') await decision.run.finish(ANSWER);
  }
  return ((performance.now() - started) * 1000) / n;
}

/**
 * The routing table (`pnpm bench` runs it after the HTTP tables; `bench:routes` alone): `n` first
 * deliveries per row, after a warm-up round, through the same engine and store.
 */
export async function runRoutesBench(log: (line?: string) => void, n = 5000): Promise<void> {
  const rows: [string, ProviderPreset, string][] = [
    ['plain guard (handler answers)', preset, 'order.paid'],
    [
      'routed event',
      routes(preset, { 'order.paid': () => undefined, 'refund.*': () => 1 }),
      'order.paid',
    ],
    [
      'routed event + zod schema',
      routes(preset, { 'order.paid': validated(Paid, () => undefined) }),
      'order.paid',
    ],
    [
      'ignored event (no route)',
      routes(preset, { 'order.paid': () => undefined }),
      'customer.created',
    ],
  ];
  // One warm-up round, then the measured one.
  for (const [, chosen, type] of rows) await perDelivery(chosen, type, Math.min(n, 1000));
  log(`| delivery (${n} each, in-memory store) | µs per delivery |`);
  log('|---|---|');
  for (const [name, chosen, type] of rows)
    log(`| ${name} | ${(await perDelivery(chosen, type, n)).toFixed(1)} |`);
}

if (require.main === module) void runRoutesBench(console.log, Number(process.argv[2] ?? 5000));
