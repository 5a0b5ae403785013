/** @module The exit codes of the `webhook-idempotency` command: stable, for cron jobs and scripts. */

/**
 * What the command's exit status means. `STUCK` is what `status --fail-on-stuck` returns when a
 * `processing` receipt is older than the stale threshold, and `DEAD` what `inbox dead
 * --fail-on-dead` returns when a delivery is dead-lettered, so a cron job can alert on them.
 */
export const ExitCode = {
  /** Done. */
  OK: 0,
  /** An unexpected error (a bug, or a database error during the command). */
  ERROR: 1,
  /** Bad usage: an unknown command or option, a bad value, an unknown status name. */
  USAGE: 2,
  /** The database could not be reached or opened, or its driver package is not installed. */
  CONNECTION: 3,
  /** The receipts (or inbox) table does not exist: run `webhook-idempotency migrate` (`--inbox`). */
  TABLE_MISSING: 4,
  /** No receipt (or inbox delivery) has the given provider and id. */
  NOT_FOUND: 5,
  /**
   * Refused, nothing changed: `release` (the receipt is not processing, or its claim is fresh:
   * `--force`), `inbox retry` (the delivery is processing or done), `redeliver` (the delivery is
   * not finished, or it is done and `--force` was not given); and each of them when the receipt or
   * delivery moved between the command's read and its write (it is left as it is).
   */
  REFUSED: 6,
  /** `status --fail-on-stuck` found stuck receipts. */
  STUCK: 7,
  /** `inbox dead --fail-on-dead` found dead-lettered deliveries. */
  DEAD: 8,
  /**
   * `inbox retry --all-dead` left one or more matched deliveries as they are: they were no longer
   * dead as listed when their turn came (the output names them); the others were retried.
   */
  LEFT: 9,
} as const;

/** One of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the command reports as one message on stderr and exits with `exitCode`. */
export class CliError extends Error {
  /** The exit status the command ends with. */
  readonly exitCode: ExitCode;
  constructor(exitCode: ExitCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
