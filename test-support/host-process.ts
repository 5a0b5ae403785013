/**
 * @module Records what reaches the real process unhandled during a test file. Jest gives each test
 * file its own copy of `process`, whose listeners the host never calls: an uncaught exception (an
 * unhandled 'error' event of a pg client) reaches only the real one, which `runInThisContext`
 * evaluates in Node's main context.
 */
import { runInThisContext } from 'node:vm';

/** Registers listeners on the host process for this file's tests; the returned list fills as things go unhandled. */
export function watchHostProcess(): string[] {
  const host = runInThisContext('process') as NodeJS.Process;
  const seen: string[] = [];
  const firstLines = (error: unknown) =>
    error instanceof Error
      ? (error.stack ?? `${error.name}: ${error.message}`).split('\n').slice(0, 4).join(' | ')
      : String(error);
  const onUncaught = (error: unknown) => seen.push(`uncaughtException: ${firstLines(error)}`);
  const onRejection = (reason: unknown) => seen.push(`unhandledRejection: ${firstLines(reason)}`);
  beforeAll(() => {
    host.on('uncaughtException', onUncaught);
    host.on('unhandledRejection', onRejection);
  });
  afterAll(() => {
    host.off('uncaughtException', onUncaught);
    host.off('unhandledRejection', onRejection);
  });
  return seen;
}
