/**
 * @module What the outbox storm's parent and its child processes (the handler servers and the
 * dispatchers) agree on: their settings, the names of the effects a handler makes, which events
 * fail for good, and how a message names its event to the receivers.
 */
import type { SqlDialect } from '@webhook-idempotency/sql';

/** The effect the handler calls the HTTP receiver with directly, under `effectKey(DIRECT_EFFECT)` (not through the outbox). */
export const DIRECT_EFFECT = 'direct';
/** The outbox message sent by `httpSender`. */
export const HTTP_EFFECT = 'notify';
/** The outbox message sent by `emailSender`. */
export const EMAIL_EFFECT = 'receipt-email';

/** The request header (HTTP) naming the event a request was made for; emails name it in their subject. */
export const EVENT_HEADER = 'x-storm-event';
/** The subject of an event's email: `receipt <event id>`. */
export const emailSubject = (id: string): string => `receipt ${id}`;
/** The HTTP receiver's path for the handler's direct calls. */
export const DIRECT_PATH = '/direct';
/** The HTTP receiver's path for the outbox's messages. */
export const OUTBOX_PATH = '/outbox';
/** The domain of every email's Message-ID (`<key@domain>`). */
export const MESSAGE_ID_DOMAIN = 'outbox-storm.test';

/** The app's answer to a run that fails on purpose: status and the code its body carries. */
export const DOOMED_REFUSAL = { status: 500, code: 'APP_EVENT_FAILS_FOR_GOOD' } as const;

/**
 * Whether event `id` (`evt_000123`) is one whose handler fails every time, after recording its
 * outbox messages: every `every`-th event (none when `every` is 0).
 */
export function failsForGood(id: string, every: number): boolean {
  return every > 0 && Number(id.slice(4)) % every === every - 1;
}

/** How a child process of the outbox storm reaches the database (the plain driver: pg, mysql2, better-sqlite3). */
export type OutboxStormConnection = 'driver';

/** Settings of one handler server process (`handler-server.ts`), its only argument (JSON). */
export interface OutboxHandlerConfig {
  readonly dialect: SqlDialect;
  readonly connection: OutboxStormConnection;
  /** Server URL of the database, or the SQLite file's path. */
  readonly url: string;
  /** Loopback port to listen on (the same one after a restart). */
  readonly port: number;
  /** The guard's `staleAfterSeconds`: small, so that a killed server's claims are taken over within the run. */
  readonly staleAfterSeconds: number;
  /** The business table (one row per committed run). */
  readonly effects: string;
  readonly poolSize: number;
  /** Milliseconds the handler stays in its transaction after its outbox messages. */
  readonly handlerDelayMs: number;
  /** The HTTP receiver's base URL (`http://127.0.0.1:port`). */
  readonly receiverUrl: string;
  /** See {@link failsForGood}. */
  readonly failEvery: number;
}

/** Where a dispatcher told to die dies: as its sender starts (nothing sent), or once the receiver accepted (before the row is marked done). */
export type DispatcherDeath = 'before-send' | 'mid-send';

/** Settings of one dispatcher process (`dispatcher.ts`), its only argument (JSON). */
export interface OutboxDispatcherConfig {
  readonly dialect: SqlDialect;
  readonly connection: OutboxStormConnection;
  readonly url: string;
  /** Given by the cluster; a dispatcher listens on nothing. */
  readonly port: number;
  /** The SMTP receiver's port on 127.0.0.1. */
  readonly smtpPort: number;
  readonly poolSize: number;
  readonly concurrency: number;
  readonly pollIntervalMs: number;
  /** Short, so that a killed dispatcher's leases run out within the run. */
  readonly visibilityTimeoutSeconds: number;
  readonly sendTimeoutMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly maxFailures: number;
}
