/**
 * pg-boss bridge for inbox mode: `pgBossRelay(options)` hands stored deliveries to a pg-boss
 * queue, and `pgBossWorker(options)` runs the queue's jobs through the receipts.
 */
export { pgBossJobId, pgBossRelay, type PgBossRelayOptions } from './relay';
export { type PgBossWorkerOptions, pgBossWorker } from './worker';
