/** @module Jest global teardown: stops what global-setup started. */
import { stopDatabases } from './databases';

export default async function globalTeardown(): Promise<void> {
  const running = globalThis.__WI_DATABASES__;
  globalThis.__WI_DATABASES__ = undefined;
  if (running) await stopDatabases(running);
}
