/**
 * pg-boss bridge for inbox mode: `pgBossRelay(options)` hands stored deliveries to a pg-boss
 * queue, and `workInbox(options)` runs the queue's jobs through the receipts.
 */
export { pgBossJobId, pgBossRelay, type PgBossRelayOptions } from './relay';
export { type PgBossWorkOptions, workInbox } from './work';
