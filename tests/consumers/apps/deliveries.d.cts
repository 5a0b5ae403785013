// Types of deliveries.cjs, for the TypeScript consumer apps.
import type { Server } from 'node:http';

export declare function deliverTwice(
  port: number,
  runs: () => number,
): Promise<{ first: unknown; second: unknown; runs: number }>;

/** Listens on a free port, delivers twice, prints the result as one JSON line and closes. */
export declare function exercise(server: Server, runs: () => number): Promise<void>;
