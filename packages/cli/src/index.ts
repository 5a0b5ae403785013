/**
 * The `webhook-idempotency` command as a function, for scripts and tests: `run(argv, io)`
 * resolves with the exit code.
 * @module @webhook-idempotency/cli
 */
export { run, processIo } from './run';
export { ExitCode, CliError } from './exit-codes';
export type { CliIo, InputStream, OutputStream } from './output';
