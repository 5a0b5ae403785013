/**
 * @module How big the proofs run (storms, inbox and queue proofs, property runs). Three lanes:
 * - `small` (default, `pnpm test` and CI): every proof runs, with a fixed seed, at a size that
 *   keeps the whole CI run under its budget; each still crosses every fault it is built for.
 * - `full` (`WI_PROOF=1`, `pnpm test:proof`): the sizes the guarantees in docs/guarantees.md quote.
 * - `soak` (`WI_SOAK=1`, `pnpm test:soak`): long runs for a release.
 */

/** The lane this run is in. */
export type ProofLane = 'small' | 'full' | 'soak';

/** `soak` under WI_SOAK=1, `full` under WI_PROOF=1, else `small`. */
export const PROOF_LANE: ProofLane =
  process.env.WI_SOAK === '1' ? 'soak' : process.env.WI_PROOF === '1' ? 'full' : 'small';

/** Picks this lane's value: `bySize({ small: 400, full: 2_000, soak: 10_000 })`. */
export function bySize<T>(sizes: { readonly small: T; readonly full: T; readonly soak: T }): T {
  return sizes[PROOF_LANE];
}
