/** @module Jest global setup: starts the database servers the SQL store tests need. */
import { startDatabases, type RunningDatabases } from './databases';

declare global {
  // Read back by global-teardown (jest runs both in the same process).
  var __WI_DATABASES__: RunningDatabases | undefined;
}

export default async function globalSetup(): Promise<void> {
  const running = await startDatabases();
  globalThis.__WI_DATABASES__ = running;
  // Workers inherit the environment: each test file creates its own database from these.
  process.env.WI_PG_URL = running.pgUrl;
  process.env.WI_MYSQL_URL = running.mysqlUrl;
  process.env.WI_TMP = running.dir;
}
