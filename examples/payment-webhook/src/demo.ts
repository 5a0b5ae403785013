/**
 * @module The demo: starts the payment example on a fresh SQLite file and plays what a provider
 * does — a delivery, its retry, a burst of duplicates, a reused id, a failure and its
 * redelivery, a forged call — then prints what each got and how often the handler ran.
 * Exits non-zero when any outcome differs from the promise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as signers from '@webhook-idempotency/providers/testing';
import { ReceiptsAdmin } from '@webhook-idempotency/sql';
import { expressDashboard } from '@webhook-idempotency/dashboard/express';
import { createPaymentApp } from './app';
import { createOrder } from './shop';

const PAYME_KEY = 'demo-cash-desk-key-000000000000000000';

/** One played scenario: what was sent, what came back, what was promised. */
export interface DemoRow {
  scenario: string;
  got: string;
  handlerRuns: number;
  expected: string;
  ok: boolean;
}

interface Answer {
  status: number;
  replayed: boolean;
  body: { result?: Record<string, unknown>; error?: { code: number }; code?: string };
  text: string;
}

function describe(a: Answer): string {
  const what = a.body.error
    ? `error ${a.body.error.code}`
    : a.body.result
      ? `state ${String(a.body.result.state ?? '-')}`
      : (a.body.code ?? a.text.slice(0, 30));
  return `${a.status} ${what}${a.replayed ? ' (replay)' : ''}`;
}

/** Where the demo leaves its dashboard running (`runDemo({ dashboard: true })`). */
export interface DemoDashboard {
  /** The dashboard's page, on 127.0.0.1. */
  readonly url: string;
  /** Stops the server and deletes the demo database. */
  close(): Promise<void>;
}

/**
 * Plays every scenario against a fresh app; returns the rows and the receipts table. With
 * `dashboard`, the app keeps running afterwards with the dashboard mounted on the demo database
 * (`dashboard.url`), until `dashboard.close()`.
 */
export async function runDemo(options: { dashboard?: boolean } = {}): Promise<{
  rows: DemoRow[];
  receipts: Array<Record<string, unknown>>;
  ok: boolean;
  dashboard?: DemoDashboard;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-idempotency-demo-'));
  let failOnce = true;
  const shop = await createPaymentApp({
    file: join(dir, 'payments.sqlite'),
    paymeKey: PAYME_KEY,
    beforeWrite(method, params) {
      if (method === 'PerformTransaction' && params.id === 'tx-flaky' && failOnce) {
        failOnce = false;
        throw new Error('database connection reset');
      }
    },
  });
  if (options.dashboard)
    // The demo listens on 127.0.0.1 only, so "anyone on this machine" is who authorize lets in.
    // An application checks its own session or credentials here.
    shop.app.use(
      expressDashboard({
        basePath: '/admin/webhooks',
        authorize: (req) =>
          ['127.0.0.1', '::ffff:127.0.0.1'].includes(req.socket.remoteAddress ?? ''),
        receipts: new ReceiptsAdmin(shop.db),
      }),
    );
  const server = shop.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payme`;
  // Payme's side, played by the test kit: JSON-RPC calls with the cash desk's Basic credentials.
  const payme = signers.payme({ password: PAYME_KEY, url: base });
  let rpcId = 1000;

  async function call(method: string, params: object, forged = false): Promise<Answer> {
    const delivery = payme.rpc(method, params, { id: rpcId++ });
    const response = await fetch(signers.toRequest(forged ? delivery.forged() : delivery));
    const text = await response.text();
    let body: Answer['body'] = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: shown as text
    }
    return {
      status: response.status,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      body,
      text,
    };
  }
  const runs = (method: string, id: string) => shop.handlerRuns.get(`${method}:${id}`) ?? 0;
  const rows: DemoRow[] = [];
  const row = (scenario: string, got: string, handlerRuns: number, expected: string, ok: boolean) =>
    rows.push({ scenario, got, handlerRuns, expected, ok });

  try {
    createOrder(shop.db, 1, 500_000);
    createOrder(shop.db, 2, 120_000);
    const create = {
      id: 'tx-0001',
      time: 1_700_000_000_000,
      amount: 500_000,
      account: { order_id: 1 },
    };

    const first = await call('CreateTransaction', create);
    row(
      '1. first delivery (CreateTransaction)',
      describe(first),
      runs('CreateTransaction', 'tx-0001'),
      '200 state 1, handler 1×',
      first.status === 200 &&
        first.body.result?.state === 1 &&
        !first.replayed &&
        runs('CreateTransaction', 'tx-0001') === 1,
    );

    const again = await call('CreateTransaction', create);
    row(
      '2. the same delivery again',
      describe(again),
      runs('CreateTransaction', 'tx-0001'),
      '200 same answer (replay), handler 1×',
      again.status === 200 &&
        again.replayed &&
        JSON.stringify(again.body.result) === JSON.stringify(first.body.result) &&
        runs('CreateTransaction', 'tx-0001') === 1,
    );

    const burst = await Promise.all(
      Array.from({ length: 20 }, () => call('PerformTransaction', { id: 'tx-0001' })),
    );
    const performed = burst.filter((a) => a.status === 200 && a.body.result?.state === 2);
    const busy = burst.filter((a) => a.status === 200 && a.body.error?.code === -32400);
    const paid = shop.db
      .prepare('SELECT count(*) AS n FROM payments_ledger WHERE order_id = 1')
      .get() as { n: number };
    row(
      '3. 20 concurrent PerformTransaction',
      `${performed.length}× state 2 (${performed.filter((a) => a.replayed).length} replays), ${busy.length}× busy`,
      runs('PerformTransaction', 'tx-0001'),
      'all 200, handler 1×, order paid once',
      performed.length + busy.length === 20 &&
        runs('PerformTransaction', 'tx-0001') === 1 &&
        paid.n === 1,
    );

    const reused = await call('CreateTransaction', { ...create, amount: 1 });
    row(
      '4. same id, different body',
      describe(reused),
      runs('CreateTransaction', 'tx-0001'),
      '422, handler not run',
      reused.status === 422 && runs('CreateTransaction', 'tx-0001') === 1,
    );

    await call('CreateTransaction', {
      id: 'tx-flaky',
      time: 1_700_000_000_001,
      amount: 120_000,
      account: { order_id: 2 },
    });
    const failed = await call('PerformTransaction', { id: 'tx-flaky' });
    const unpaid = shop.db.prepare('SELECT status FROM orders WHERE id = 2').get() as {
      status: string;
    };
    const failedReceipt = shop.db
      .prepare(
        "SELECT status, error FROM webhook_receipts WHERE external_id = 'PerformTransaction:tx-flaky'",
      )
      .get() as { status: string; error: string | null } | undefined;
    row(
      '5a. handler fails (DB hiccup)',
      describe(failed),
      runs('PerformTransaction', 'tx-flaky'),
      '500, receipt failed, order 2 unpaid',
      failed.status === 500 &&
        unpaid.status === 'new' &&
        failedReceipt?.status === 'failed' &&
        failedReceipt.error === 'Error: database connection reset',
    );
    const redelivered = await call('PerformTransaction', { id: 'tx-flaky' });
    const ledger2 = shop.db
      .prepare('SELECT count(*) AS n FROM payments_ledger WHERE order_id = 2')
      .get() as { n: number };
    row(
      '5b. provider redelivers',
      describe(redelivered),
      runs('PerformTransaction', 'tx-flaky'),
      '200 state 2, handler 2×, paid once',
      redelivered.status === 200 &&
        redelivered.body.result?.state === 2 &&
        !redelivered.replayed &&
        runs('PerformTransaction', 'tx-flaky') === 2 &&
        ledger2.n === 1,
    );

    const forged = await call('PerformTransaction', { id: 'tx-forged' }, true);
    const forgedReceipt = shop.db
      .prepare("SELECT count(*) AS n FROM webhook_receipts WHERE external_id LIKE '%tx-forged%'")
      .get() as { n: number };
    row(
      '6. bad credentials',
      describe(forged),
      runs('PerformTransaction', 'tx-forged'),
      '200 error -32504, no receipt',
      forged.status === 200 &&
        forged.body.error?.code === -32504 &&
        forgedReceipt.n === 0 &&
        runs('PerformTransaction', 'tx-forged') === 0,
    );

    const receipts = shop.db
      .prepare(
        'SELECT provider, external_id, status, attempts, error FROM webhook_receipts ORDER BY claimed_at, external_id',
      )
      .all() as Array<Record<string, unknown>>;
    const ok = rows.every((r) => r.ok);
    if (!options.dashboard) return { rows, receipts, ok };
    const close = async () => {
      await new Promise((resolve) => server.close(resolve));
      shop.close();
      rmSync(dir, { recursive: true, force: true });
    };
    const dashboard = { url: `${base.replace(/\/payme$/, '')}/admin/webhooks/`, close };
    return { rows, receipts, ok, dashboard };
  } finally {
    if (!options.dashboard) {
      await new Promise((resolve) => server.close(resolve));
      shop.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function table(headers: string[], body: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

async function main(): Promise<void> {
  // In a terminal the demo goes on serving the dashboard until Ctrl-C; piped or scripted (CI), it
  // prints the outcomes and exits. DEMO_DASHBOARD=1 serves anyway, DEMO_DASHBOARD=0 never does.
  const asked = process.env.DEMO_DASHBOARD;
  const serve = asked === undefined ? process.stdout.isTTY === true : asked !== '0';
  const { rows, receipts, ok, dashboard } = await runDemo({ dashboard: serve });
  console.log(
    '\nA Payme endpoint guarded by webhook-idempotency (Express + SQLite, transactional mode)\n',
  );
  console.log(
    table(
      ['scenario', 'got back', 'handler runs for this id so far', 'promise', ''],
      rows.map((r) => [r.scenario, r.got, `${r.handlerRuns}×`, r.expected, r.ok ? 'ok' : 'BROKEN']),
    ),
  );
  console.log('\nReceipts table (webhook_receipts):\n');
  console.log(
    table(
      ['provider', 'external_id', 'status', 'attempts', 'error'],
      receipts.map((r) => [
        String(r.provider),
        String(r.external_id),
        String(r.status),
        String(r.attempts),
        String(r.error ?? ''),
      ]),
    ),
  );
  console.log(
    ok ? '\nEvery outcome matches the promise.' : '\nSOME OUTCOMES DIFFER FROM THE PROMISE.',
  );
  process.exitCode = ok ? 0 : 1;
  if (!dashboard)
    console.log(
      '\nRun `pnpm demo` in a terminal (or with DEMO_DASHBOARD=1) to browse these receipts in the dashboard.',
    );
  if (dashboard) {
    console.log(`\nThe dashboard on this demo database: ${dashboard.url}`);
    console.log(
      '(open it in a browser on this machine; Ctrl-C stops the demo and deletes its database)',
    );
    const stop = () => void dashboard.close().then(() => process.exit(process.exitCode ?? 0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
}

if (require.main === module) void main();
