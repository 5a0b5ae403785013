/** @module Jest global setup: starts the database servers the SQL store tests need. */
export default async function globalSetup(): Promise<void> {}
