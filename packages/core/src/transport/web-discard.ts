/**
 * @module An answer sent before the request body was read, on a Web-standard server. The sender
 * may still be writing, and what the runtime does with the unread rest loses the answer for a
 * sender that reads only once its body is written: Bun and workerd close the connection under it
 * (a reset), Node's http server and Next.js leave it open unread (the write never finishes). So
 * the answer goes out at once and its end waits while the rest of the body is read off and
 * discarded, within a bound; then the answer ends.
 */

/**
 * After an answer sent before the request body was read, the rest of that body is read off and
 * discarded for at most this many bytes (16 MiB), while it keeps coming (see
 * {@link DISCARD_IDLE_MS}) and for {@link DISCARD_AFTER_ANSWER_MS} at most. Without a bound, an
 * unauthenticated sender could make the server read an endless body at full speed.
 */
export const DISCARD_AFTER_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * How long, in milliseconds, the rest of a refused body is read off at most in all (10 s): time
 * for a sender on a slow link, or on a loaded machine, to finish writing a body of a few MiB.
 */
export const DISCARD_AFTER_ANSWER_MS = 10_000;

/**
 * How long, in milliseconds, the discarding waits for the next piece of a refused body (1 s): a
 * sender that stops writing is not waited for until {@link DISCARD_AFTER_ANSWER_MS}.
 */
export const DISCARD_IDLE_MS = 1_000;

const ignore = (): undefined => undefined;

/** A discard under way: `finished` resolves when it stopped (never rejects); `stop()` ends it early. */
interface Discard {
  readonly finished: Promise<void>;
  stop(): void;
}

/** A timer that keeps no process alive (Node's `unref`; other runtimes have none). */
function unrefTimer(fn: () => void, ms: number): unknown {
  const timer: unknown = setTimeout(fn, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

const clear = (timer: unknown) => clearTimeout(timer as Parameters<typeof clearTimeout>[0]);

/**
 * Reads `body` and drops every chunk, until it ends, it fails (the sender went away), more than
 * {@link DISCARD_AFTER_ANSWER_BYTES} came, nothing came for {@link DISCARD_IDLE_MS}, or
 * {@link DISCARD_AFTER_ANSWER_MS} passed. Past a bound the stream is cancelled, which tells the
 * server the rest is not wanted (workerd and Node close the connection then; Bun and Deno drop the
 * rest themselves). Nothing read is kept.
 */
function discard(body: ReadableStream<Uint8Array>): Discard {
  const reader = body.getReader();
  let stopped = false;
  let ended: () => void = ignore;
  // Resolved by stop() as well: a runtime may leave a read pending after its stream is cancelled.
  const stoppedEarly = new Promise<void>((resolve) => (ended = resolve));
  const stop = () => {
    if (stopped) return;
    stopped = true;
    ended();
    reader.cancel().catch(ignore);
  };
  const total = unrefTimer(stop, DISCARD_AFTER_ANSWER_MS);
  let idle = unrefTimer(stop, DISCARD_IDLE_MS);
  const readOff = (async () => {
    let read = 0;
    try {
      while (!stopped) {
        const { done, value } = await reader.read();
        if (done) return;
        clear(idle);
        idle = unrefTimer(stop, DISCARD_IDLE_MS);
        read += value.byteLength;
        if (read > DISCARD_AFTER_ANSWER_BYTES) stop();
      }
    } catch {
      // The sender went away or the server dropped the body: nothing is left to discard.
    }
  })();
  const finished = Promise.race([readOff, stoppedEarly]).then(() => {
    clear(total);
    clear(idle);
  });
  return { finished, stop };
}

/**
 * `answer` to a `request` whose body is left unread (a body over the limit), sent so that the
 * sender can read it: the status, headers and bytes of `answer` go out at once, and the answer's
 * end waits until the rest of `request`'s body has been read off and discarded (it ended, or
 * past {@link DISCARD_AFTER_ANSWER_BYTES}, a pause of {@link DISCARD_IDLE_MS} or
 * {@link DISCARD_AFTER_ANSWER_MS} in all, when it is cancelled). A sender that finishes writing within the bound then reads the whole answer on a
 * connection that stays usable. `answer` itself is returned when the request has no body left to
 * read (none, or already read or locked).
 * @example
 * if (tooLarge) return answerWhileDiscarding(request, toWebResponse(requestTooLarge(limit)));
 */
export function answerWhileDiscarding(request: Request, answer: Response): Response {
  const rest = request.body;
  if (rest === null || request.bodyUsed || rest.locked) return answer;
  const discarding = discard(rest);
  const bytes = answer.body?.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = bytes ? await bytes.read() : undefined;
      if (chunk && !chunk.done) return controller.enqueue(chunk.value);
      await discarding.finished;
      controller.close();
    },
    // The sender hung up, or the server stopped sending: nothing more to read for it.
    cancel(reason) {
      discarding.stop();
      return bytes?.cancel(reason);
    },
  });
  const { status, statusText, headers } = answer;
  return new Response(body, { status, statusText, headers });
}
