/** @module The exit codes of the `webhook-idempotency` command: stable, for cron jobs and scripts. */

/**
 * What the command's exit status means. `STUCK` is what `status --fail-on-stuck` returns when a
 * `processing` receipt is older than the stale threshold, and `DEAD` what `inbox dead
 * --fail-on-dead` (`outbox dead --fail-on-dead`) returns when a delivery (an outbox message) is
 * dead, so a cron job can alert on them.
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
  /**
   * The receipts (or inbox, or outbox) table does not exist: run `webhook-idempotency migrate`
   * (`--inbox`, `--outbox`).
   */
  TABLE_MISSING: 4,
  /** No receipt (or inbox delivery, or outbox message) has the given key. */
  NOT_FOUND: 5,
  /**
   * Refused, nothing changed: `release` (the receipt is not processing, or its claim is fresh:
   * `--force`), `inbox retry` and `outbox retry` (the delivery or message is processing or done),
   * `redeliver` (the delivery is not finished, or it is done and `--force` was not given); and each
   * of them when the receipt, delivery or message moved between the command's read and its write
   * (it is left as it is).
   */
  REFUSED: 6,
  /** `status --fail-on-stuck` found stuck receipts. */
  STUCK: 7,
  /** `inbox dead --fail-on-dead` found dead-lettered deliveries (`outbox dead`: dead messages). */
  DEAD: 8,
  /**
   * `inbox retry --all-dead`, `outbox retry --all-dead` or `redeliver` by query left one or more
   * matched deliveries (messages) as they are: they were no longer as listed when their turn came
   * (the output names them); the others were changed.
   */
  LEFT: 9,
} as const;

/** One of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the command reports as one message on stderr and exits with `exitCode`. */
export class CliError extends Error {
  /** @param exitCode The exit status the command ends with. */
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}
