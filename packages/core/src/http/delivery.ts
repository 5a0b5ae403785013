/** @module The `delivered` event of one guarded HTTP request: outcome, the answer's status, times. */
import type { DeliveryOutcome } from '../constants';
import type { IdempotencyGuard } from '../guard';
import type { RequestKey } from '../request-key';
import type { Decision } from './engine';

/**
 * What a run needs to report its delivery; built only when the guard has an `onEvent` listener,
 * so an unobserved request allocates nothing for it and reads no clock.
 */
export interface DeliveryTrace {
  readonly guard: IdempotencyGuard<unknown>;
  readonly key: RequestKey;
  readonly attempts: number;
  /** `performance.now()` when the engine began with the request. */
  readonly started: number;
  /** The claim's ticket, whose handler time the event reports. */
  readonly ticket: { readonly handlerMs: number | undefined } | undefined;
}

/** Emits the request's one `delivered` event (nothing for an outcome that is not a delivery). */
export function reportDelivery(
  trace: DeliveryTrace,
  outcome: DeliveryOutcome | undefined,
  status: number | undefined,
): void {
  if (outcome === undefined) return;
  trace.guard.emit({
    type: 'delivered',
    key: trace.key,
    outcome,
    attempts: trace.attempts,
    durationMs: performance.now() - trace.started,
    handlerMs: trace.ticket?.handlerMs,
    status,
  });
}

/** Reports a decision the engine answered itself (a replay, 409, 422, 503) and hands it on. */
export function reported<D extends Decision<unknown>>(
  decision: D,
  trace: DeliveryTrace,
  outcome: DeliveryOutcome | undefined,
): D {
  reportDelivery(
    trace,
    outcome,
    decision.action === 'respond' ? decision.response.status : undefined,
  );
  return decision;
}
