/** @module What the inbox proof's parent and its worker processes agree on. */
import { createHash } from 'node:crypto';
import type { Target } from './targets';

/** What the parent passes as the child's only argument (JSON). */
export interface InboxChildTask {
  readonly target: Target;
  readonly inboxTable: string;
  readonly receiptsTable: string;
  readonly effects: string;
  readonly visibilityTimeoutSeconds: number;
  /** The worker SIGKILLs itself inside its n-th handler run; 0: never. */
  readonly dieInHandler: number;
}

/** About one delivery in seven fails its first attempt. */
export function isFlaky(id: string): boolean {
  return createHash('sha256').update(id).digest()[0]! < 36;
}

/** The poison deliveries: their handler always fails, so they end dead after `POISON_MAX_FAILURES`. */
export const POISON = ['poison_1', 'poison_2', 'poison_3', 'poison_4', 'poison_5'] as const;
/** The workers' `maxFailures`: small, so the poison deliveries die quickly. */
export const POISON_MAX_FAILURES = 4;
/** What a poison delivery's handler throws. */
export const POISON_ERROR = 'poison delivery';

/** True for the ids of {@link POISON}. */
export function isPoison(id: string): boolean {
  return (POISON as readonly string[]).includes(id);
}
