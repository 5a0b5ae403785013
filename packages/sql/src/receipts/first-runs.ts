/**
 * @module The group operations of the Store contract on the receipts table: which keys have a
 * receipt (`known`), and `completed` receipts for first runs, all or nothing (`recordFirst`). What
 * such a receipt holds is the contract's (core's); this module only writes it atomically on every
 * dialect and connection.
 */
import { ConfigError, type KeyLike } from '@webhook-idempotency/core';
import type { FirstRun } from '@webhook-idempotency/core/adapter';
import type { StatementRunner } from '../connections/executor';
import { type DialectSpec, isDuplicateKey } from '../dialects';
import type { Queries } from './queries';
import { text } from './rows';

/** Keys read by one statement of `known`: two parameters each, within D1's 100 bound parameters. */
const KNOWN_CHUNK = 50;
/** Most first runs one `recordFirst` writes: four parameters each, well under every placeholder limit. */
export const MAX_FIRST_RUNS = 1000;

/** A key as a string that tells keys apart: `provider` NUL `externalId` (neither holds a NUL). */
const keyOf = (provider: string, externalId: string): string => `${provider}\u0000${externalId}`;

/** What the group operations run on: the table's statements, its dialect, and its connection. */
export interface FirstRunsScope {
  readonly runner: StatementRunner;
  readonly spec: DialectSpec;
  readonly sql: Queries;
}

/** Which of `keys` have a receipt, read in `transaction` when given: one statement per 50 keys. */
export async function knownKeys(
  { runner, sql }: FirstRunsScope,
  keys: readonly KeyLike[],
  transaction?: unknown,
): Promise<boolean[]> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += KNOWN_CHUNK) {
    const chunk = keys.slice(i, i + KNOWN_CHUNK);
    const { rows } = await runner.query(
      sql.known(chunk.length),
      chunk.flatMap((key) => [key.provider, key.externalId]),
      transaction,
    );
    for (const row of rows) found.add(keyOf(text(row.provider), text(row.external_id)));
  }
  return keys.map((key) => found.has(keyOf(key.provider, key.externalId)));
}

/** The parameters of `entries`' receipts: key, response and whole handler milliseconds each. */
const paramsOf = (entries: readonly FirstRun[]): unknown[] =>
  entries.flatMap(({ key, response, handlerMs }) => [
    key.provider,
    key.externalId,
    response,
    Number.isFinite(handlerMs) ? Math.max(0, Math.round(handlerMs)) : 0,
  ]);

/**
 * `completed` receipts for `entries`, all or nothing. Outside a transaction, one statement that a
 * key with a receipt fails whole (a statement on its own is its own transaction); inside one,
 * where a failed statement may end the transaction (PostgreSQL), keys with a receipt are skipped,
 * and what was written is undone in the same transaction when any was.
 * @throws {ConfigError} naming `entries` for more than {@link MAX_FIRST_RUNS}.
 */
export async function recordFirstRuns(
  scope: FirstRunsScope,
  entries: readonly FirstRun[],
  transaction?: unknown,
): Promise<boolean> {
  if (entries.length === 0) return true;
  if (entries.length > MAX_FIRST_RUNS)
    throw new ConfigError('entries', `must be at most ${MAX_FIRST_RUNS}, got ${entries.length}`);
  const keys = new Set(entries.map(({ key }) => keyOf(key.provider, key.externalId)));
  if (keys.size < entries.length) return false;
  return transaction === undefined
    ? recordOnItsOwn(scope, entries)
    : recordInTransaction(scope, entries, transaction);
}

/**
 * Rows of one `recordFirst` statement on a runner that batches (D1): four parameters each, within
 * D1's 100 bound parameters per statement. The statements go in one batch, one transaction.
 */
const BATCHED_ROWS = 25;

/**
 * One statement, its own transaction (on a runner with batches, statements of
 * {@link BATCHED_ROWS} rows in one batch): written whole, or failed whole on a key with a receipt.
 */
async function recordOnItsOwn(scope: FirstRunsScope, entries: readonly FirstRun[]) {
  const { runner, spec, sql } = scope;
  try {
    if (runner.batch && entries.length > BATCHED_ROWS) {
      const statements = [];
      for (let i = 0; i < entries.length; i += BATCHED_ROWS) {
        const part = entries.slice(i, i + BATCHED_ROWS);
        statements.push({ sql: sql.recordFirst(part.length), params: paramsOf(part) });
      }
      const results = await runner.batch(statements);
      return results.reduce((sum, result) => sum + result.affected, 0) === entries.length;
    }
    const { affected } = await runner.query(sql.recordFirst(entries.length), paramsOf(entries));
    return affected === entries.length;
  } catch (error) {
    if (isDuplicateKey(spec, error)) return false;
    // A driver that reports the duplicate its own way (D1): the keys tell.
    const known = await knownKeys(
      scope,
      entries.map(({ key }) => key),
    ).catch(() => []);
    if (known.some(Boolean)) return false;
    throw error;
  }
}

/** In `transaction`: keys with a receipt skipped (or refused, MySQL), and what was written undone. */
async function recordInTransaction(
  { runner, spec, sql }: FirstRunsScope,
  entries: readonly FirstRun[],
  transaction: unknown,
): Promise<boolean> {
  let written: readonly { provider: unknown; external_id: unknown }[];
  try {
    const result = await runner.query(
      sql.recordSkipping(entries.length),
      paramsOf(entries),
      transaction,
    );
    if (result.affected === entries.length) return true;
    written = result.rows as typeof written;
  } catch (error) {
    // MySQL: the duplicate key undid this statement alone; the transaction goes on.
    if (isDuplicateKey(spec, error)) return false;
    throw error;
  }
  if (written.length > 0)
    await runner.query(
      sql.unrecord(written.length),
      written.flatMap((row) => [text(row.provider), text(row.external_id)]),
      transaction,
    );
  return false;
}
