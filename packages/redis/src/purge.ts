/**
 * @module Purge without blocking the server: SCAN each node (every master of a cluster) with the
 * prefix's MATCH pattern, `chunkSize` keys a step, and run the fenced one-key purge script on each
 * key found. Never `KEYS`, never one long script over the whole keyspace.
 */
import { bounded } from './commands';
import type { Commander } from './connection';
import { scanPattern } from './keys';

/** What one purge deletes, and how. */
export interface PurgePlan {
  readonly prefix: string;
  readonly provider: string | undefined;
  readonly chunkSize: number;
  readonly timeoutMs: number;
  /** Deletes `key` when it is finished and old enough; resolves 1 when it did. */
  purgeOne(key: string, signal: AbortSignal): Promise<unknown>;
}

/** SCAN's reply: the next cursor and the keys of this step. */
function scanReply(reply: unknown): [cursor: string, keys: string[]] {
  if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1]))
    throw new Error(`Redis answered SCAN with an unexpected reply: ${typeof reply}`);
  return [String(reply[0]), (reply[1] as unknown[]).map(String)];
}

/**
 * Deletes the finished receipts of `plan` on every node; returns how many. A key SCAN returns
 * twice (it may, while the server resizes its table) is deleted once: the script finds it gone.
 */
export async function purgeReceipts(commander: Commander, plan: PurgePlan): Promise<number> {
  const pattern = scanPattern(plan.prefix, plan.provider);
  const count = String(plan.chunkSize);
  let deleted = 0;
  for (const node of await commander.scanNodes()) {
    let cursor = '0';
    do {
      const step = cursor;
      const [next, keys] = scanReply(
        await bounded('purge (SCAN)', plan.timeoutMs, (signal) =>
          node(['SCAN', step, 'MATCH', pattern, 'COUNT', count], signal),
        ),
      );
      cursor = next;
      const results = await Promise.all(
        keys.map((key) => bounded('purge', plan.timeoutMs, (signal) => plan.purgeOne(key, signal))),
      );
      deleted += results.filter((result) => Number(result) === 1).length;
    } while (cursor !== '0');
  }
  return deleted;
}
