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
