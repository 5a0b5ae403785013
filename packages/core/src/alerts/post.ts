/**
 * @module One outbound POST for the senders, bounded in time (a timer and the caller's signal,
 * through connection, headers and body alike) and in size (the body sent, and at most a few KiB of
 * an answer read, only to name an error), never following a redirect.
 */
import { headOf } from '../answer-head';

/** Most bytes of an answer read to describe a refusal; the rest is never read. */
const MAX_ANSWER_BYTES = 2048;

/** A notice the receiving end did not take: its status (or `0` when none came) and the start of its answer. */
export class NotifyError extends Error {
  /** The HTTP status of the answer, `0` when there was none (a timeout, a refused connection). */
  readonly status: number;
  constructor(message: string, status: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NotifyError';
    this.status = status;
  }
}

/** A signal that aborts with `parent` or after `ms`, and the way to drop its timer. */
export function boundedSignal(
  parent: AbortSignal,
  ms: number,
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const onParent = () => controller.abort(parent.reason);
  const timer = setTimeout(
    () => controller.abort(new NotifyError(`no answer within ${ms} ms`, 0)),
    ms,
  );
  timer.unref?.();
  if (parent.aborted) onParent();
  else parent.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParent);
    },
  };
}

/** What {@link postBounded} sends and how long it may take. */
export interface PostInput {
  readonly url: URL;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/**
 * POSTs `body`; resolves on a 2xx answer (whose body is never read), rejects with a
 * {@link NotifyError} on any other answer, a redirect, a timeout or a network failure.
 */
export async function postBounded({ url, body, headers, timeoutMs, signal }: PostInput) {
  const bound = boundedSignal(signal, timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      body,
      redirect: 'manual',
      signal: bound.signal,
    });
    if (response.status >= 200 && response.status < 300) {
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    const answer = await headOf(response.body, MAX_ANSWER_BYTES);
    throw new NotifyError(
      `${url.host} answered ${response.status}${answer ? `: ${answer.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
      response.status,
    );
  } catch (error) {
    if (error instanceof NotifyError) throw error;
    const reason = bound.signal.aborted ? bound.signal.reason : error;
    if (reason instanceof NotifyError) throw reason;
    throw new NotifyError(`could not reach ${url.host}: ${String(reason)}`, 0, { cause: reason });
  } finally {
    bound.clear();
  }
}
