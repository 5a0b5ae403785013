/** @module The form body of an action, read by the Node mounts under a limit: forms are small, anything larger is refused. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardRest, REQUEST_TOO_LARGE, readNodeBody } from '@webhook-idempotency/core/adapter';

/** The largest form body a mount reads, in bytes: a POST past it is answered `413`. */
export const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * The bytes of a POST body from a Node request, unless an application's body parser read it
 * already (the stream has ended: the dashboard reads the parsed fields then). Whether a parser set
 * a body says nothing: Express 4's `express.json()` sets `{}` on a form it does not read. At most
 * {@link FORM_LIMIT_BYTES}: past them (announced by `content-length`, or counted) it returns
 * `REQUEST_TOO_LARGE`, and the rest of the body is read off and dropped within core's bound while
 * `res` carries the `413` (so that a sender that writes its whole body before reading gets it);
 * past that bound the connection is closed.
 */
export async function readForm(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Buffer | undefined | typeof REQUEST_TOO_LARGE> {
  if (req.method !== 'POST' || req.readableEnded) return undefined;
  if (Number(req.headers['content-length']) > FORM_LIMIT_BYTES) {
    discardRest(req, res);
    return REQUEST_TOO_LARGE;
  }
  return readNodeBody(req, res, FORM_LIMIT_BYTES);
}

/**
 * The `413` answer to a form past the limit. The connection stays open: the rest of the form is
 * read off (see {@link readForm}), and closed only past the bound.
 */
export const formTooLarge = {
  status: 413,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body: Buffer.from(`Form larger than ${FORM_LIMIT_BYTES} bytes`),
};
