/**
 * @module The work `instructions.ts` counts under callgrind: `node target.js <scenario> <warmup> <n>`
 * runs `warmup` operations, then `n` more, of one scenario. The runner subtracts a run with `n`
 * from one with `2n`, so start-up and warm-up cancel out. Express requests go through
 * light-my-request (no sockets), the same way for the bare route, the guarded ones and the peer
 * (`express-peer-first`: @node-idempotency's core through our Express glue in ./peer, a new key per
 * request, its recording after the answer counted too, since every operation's work is done
 * before the process exits).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyGuard, InMemoryStore, RequestKey } from '@webhook-idempotency/core';
import { idempotent, saveRawBody } from '@webhook-idempotency/express';
import { Schema, SqlStore } from '@webhook-idempotency/sql';
import Database from 'better-sqlite3';
import express from 'express';
import inject from 'light-my-request';
import { peerMiddleware } from './peer';

type Op = (i: number) => Promise<unknown>;

const handler = async () => ({ received: true });
const body = '{"type":"payment.succeeded","data":{"amount":500000}}';

/**
 * The in-process store's bound: a store at a steady size, as a long-running one is (every first
 * delivery past the warm-up also drops the oldest receipt). A store that only grows rehashes its
 * map each time its size doubles, and whether a doubling falls inside one run of the pair or the
 * other moved the figure by per cents.
 */
const STEADY_RECEIPTS = 1_000;

/**
 * The listing's index (`<table>_claimed_idx`, which pages the receipts by claim time without
 * reading the whole table): one more B-tree each first delivery writes. Its `-no-listing-index`
 * scenarios drop it, so a tree that has it can be compared with one from before it like for like.
 */
const LISTING_INDEX = 'webhook_receipts_claimed_idx';

async function guardOps(scenario: string): Promise<Op> {
  if (scenario.startsWith('guard-sqlite')) {
    const store = await sqliteStore(scenario.endsWith('-no-listing-index'));
    const guard = new IdempotencyGuard(store);
    return (i) => guard.run(new RequestKey('bench', `e${i}`), handler);
  }
  const guard = new IdempotencyGuard(new InMemoryStore({ maxReceipts: STEADY_RECEIPTS }));
  if (scenario === 'guard-baseline') return () => handler();
  if (scenario === 'guard-first')
    return (i) => guard.run(new RequestKey('bench', `e${i}`), handler);
  return () => guard.run(new RequestKey('bench', 'same'), handler);
}

/**
 * A SQLite file in WAL mode with the receipts table, as the HTTP section's `sqlite` server has;
 * `withoutListingIndex` drops the listing's index (a tree from before it never made one).
 */
async function sqliteStore(withoutListingIndex = false) {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'wi-instructions-')), 'receipts.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  await Schema.createTable(db);
  if (withoutListingIndex) db.exec(`DROP INDEX IF EXISTS "${LISTING_INDEX}"`);
  return new SqlStore(db);
}

async function expressOps(scenario: string): Promise<Op> {
  const app = express();
  const key = (req: express.Request) => req.get('x-event-id');
  const guard =
    scenario === 'express-bare'
      ? []
      : scenario === 'express-peer-first'
        ? [peerMiddleware()]
        : scenario.startsWith('express-sqlite')
          ? [idempotent({ store: await sqliteStore(), provider: 'bench', key })]
          : [
              idempotent({
                store: new InMemoryStore({ maxReceipts: Number.POSITIVE_INFINITY }),
                provider: 'bench',
                key,
              }),
            ];
  app.post('/hook', express.json({ verify: saveRawBody }), ...guard, (_req, res) => {
    res.json({ received: true });
  });
  return async (i) => {
    const id = scenario.endsWith('-first') ? `e${i}` : 'same';
    const res = await inject(app, {
      method: 'POST',
      url: '/hook',
      payload: body,
      headers: { 'content-type': 'application/json', 'x-event-id': id },
    });
    if (res.statusCode !== 200) throw new Error(`${scenario}: HTTP ${res.statusCode}`);
  };
}

async function main(): Promise<void> {
  const [scenario = '', warmup = '0', n = '0'] = process.argv.slice(2);
  const op = scenario.startsWith('guard') ? await guardOps(scenario) : await expressOps(scenario);
  const total = Number(warmup) + Number(n);
  for (let i = 0; i < total; i++) await op(i);
}

void main();
