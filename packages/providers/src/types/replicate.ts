/**
 * @module Replicate's own types for the Replicate preset, from `replicate` (an optional peer):
 * `providers.replicate<ReplicateEvents>({ secret })`. Types only: nothing loads at run time.
 */
import type { Prediction } from 'replicate';

/** Every Replicate webhook body: the prediction (or training) as `replicate`'s `Prediction`. */
export type ReplicateEvent = Prediction;

/** Each status the preset names a delivery by (`succeeded`) to the prediction in that status. */
export type ReplicateEvents = {
  readonly [Status in Prediction['status']]: Prediction & { readonly status: Status };
};
