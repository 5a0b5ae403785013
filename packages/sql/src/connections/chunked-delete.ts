/** @module One chunked DELETE run until the rows it matches are gone: the purges of receipts and deliveries. */
import type { ChunkDelete } from '../dialects';

/**
 * Runs `statement` with `where` chunk after chunk of at most `chunkSize` rows, until a chunk
 * deletes fewer; `onChunk` gets the running total after each chunk
 * that deleted rows. Each chunk is its own statement (no long transaction, no lock held across
 * chunks). Resolves with the total.
 */
export async function deleteInChunks(
  run: (sql: string, params: unknown[]) => Promise<{ readonly affected: number }>,
  statement: ChunkDelete,
  where: readonly unknown[],
  chunkSize: number,
  onChunk?: (total: number) => void,
): Promise<number> {
  const params = statement.params(where, chunkSize);
  let total = 0;
  for (;;) {
    const { affected } = await run(statement.sql, params);
    total += affected;
    if (affected > 0) onChunk?.(total);
    if (affected < chunkSize) return total;
  }
}
