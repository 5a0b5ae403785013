/** @module The guard events of a route set: what it answered before any claim. */

/**
 * A route set's answer to a verified delivery before any claim, as the guard's `onEvent` reports
 * it. `ignored`: no route takes it and its `unrouted` policy is `'ignore'`, answered 2xx with
 * nothing claimed, stored or run (no `delivered` event follows). `refused`: its payload failed its
 * route's schema (`ERR_IDEMPOTENCY_PAYLOAD_INVALID`, the schema's `issues`), or no route takes it
 * under `unrouted: 'refuse'` (`ERR_IDEMPOTENCY_EVENT_UNROUTED`), answered 422 with nothing stored.
 * `event`: the name it carried; `durationMs`: from the adapter's call to the answer.
 */
export type RouteEvent =
  | {
      readonly type: 'ignored';
      readonly provider: string;
      readonly event: string | undefined;
      readonly durationMs: number;
    }
  | {
      readonly type: 'refused';
      readonly provider: string;
      readonly event: string | undefined;
      readonly code: string;
      readonly issues: readonly string[];
      readonly durationMs: number;
    };
