/** @module One chunked DELETE run until the rows it matches are gone: the purges of receipts and deliveries. */
import type { BatchDelete } from '../dialects';

/**
 * Runs `statement` with `where` chunk after chunk of at most `batchSize` rows (purge's option
 * keeps its name), until a chunk deletes fewer; `onBatch` gets the running total after each chunk
 * that deleted rows. Each chunk is its own statement (no long transaction, no lock held across
 * chunks). Resolves with the total.
 */
export async function deleteInChunks(
  run: (sql: string, params: unknown[]) => Promise<{ readonly affected: number }>,
  statement: BatchDelete,
  where: readonly unknown[],
  batchSize: number,
  onBatch?: (total: number) => void,
): Promise<number> {
  const params = statement.params(where, batchSize);
  let total = 0;
  for (;;) {
    const { affected } = await run(statement.sql, params);
    total += affected;
    if (affected > 0) onBatch?.(total);
    if (affected < batchSize) return total;
  }
}
