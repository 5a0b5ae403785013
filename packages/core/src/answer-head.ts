/**
 * @module The start of an HTTP answer, read only to name a refusal in an error: what the alert
 * senders and the outbox's HTTP sender share.
 */

/** Reads at most `max` bytes of a body as UTF-8, then cancels the rest (never read). */
export async function headOf(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
