/** @module The form body of an action, read by the Node mounts under a limit: forms are small, anything larger is refused. */
import type { IncomingMessage } from 'node:http';

/** The largest form body a mount reads, in bytes: a POST past it is answered `413`. */
export const FORM_LIMIT_BYTES = 64 * 1024;

/** What {@link readForm} returns for a body past {@link FORM_LIMIT_BYTES}. */
export const FORM_TOO_LARGE: unique symbol = Symbol('form too large');

/**
 * The bytes of a POST body from a Node request, unless an application's body parser read it
 * already (the stream has ended: the dashboard reads the parsed fields then). Whether a parser set
 * a body says nothing: Express 4's `express.json()` sets `{}` on a form it does not read. At most
 * {@link FORM_LIMIT_BYTES}: past them it stops reading and returns {@link FORM_TOO_LARGE}.
 */
export async function readForm(
  req: IncomingMessage,
): Promise<Buffer | undefined | typeof FORM_TOO_LARGE> {
  if (req.method !== 'POST' || req.readableEnded) return undefined;
  if (Number(req.headers['content-length']) > FORM_LIMIT_BYTES) return FORM_TOO_LARGE;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) return FORM_TOO_LARGE;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The `413` answer to a form past the limit. */
export const formTooLarge = {
  status: 413,
  headers: { 'content-type': 'text/plain; charset=utf-8', connection: 'close' },
  body: Buffer.from(`Form larger than ${FORM_LIMIT_BYTES} bytes`),
};
