/** @module The row type of the dashboard's hostile-input table, shared by the modules that hold its rows. */
import type { RawRequest } from './hostile-client';

/** The mounts the table runs on. */
export type DashboardFamily = 'express' | 'fastify' | 'koa' | 'hono' | 'fetch';

/** One row. */
export interface DashboardCase {
  readonly name: string;
  /** What is sent, for the docs' table. */
  readonly sent: string;
  /** Path and query under the server (the dashboard's path included). */
  readonly path: string;
  /** Sent with `x-admin: yes` (what the table's `authorize` lets in). */
  readonly admin: boolean;
  readonly request: RawRequest;
  readonly status: number;
  /** Who answers when it is not the dashboard (shown in the table). */
  readonly by?: string;
  /** Text the answer must not hold (an echo of markup, a stored signature). */
  readonly mustNotContain?: string;
  /** Where a mount answers otherwise, and why (`by`). */
  readonly on?: Partial<Record<DashboardFamily, { readonly status: number; readonly by: string }>>;
}
