/**
 * Inbox mode (docs/inbox.md): the endpoint stores each verified delivery and answers at once; a
 * worker runs the handlers later, through the guard's receipts. What an application writes
 * against: the worker, the `InboxStore` contract and its vocabulary, and `InMemoryInbox`.
 * Queue-bridge authors: `@webhook-idempotency/core/adapter`.
 * @module @webhook-idempotency/core/inbox
 */
export type { InboxBackpressureOptions, InboxOptions, InboxResponse } from './accept';
export type {
  AnsweredEvent,
  BackpressureEvent,
  EndpointEvent,
  BacklogInput,
  InboxBacklog,
  ProviderBacklog,
} from './figures';
export type { InboxHandlerEntry, InboxHandlers } from './handlers';
export { GroupConflict } from '../receipt-group';
export { InMemoryInbox, type InMemoryInboxOptions } from './memory-inbox';
export {
  createInboxWorker,
  type InboxHandler,
  type InboxWorker,
  type InboxWorkerOptions,
  retryDelayMs,
} from './worker';
export {
  type Delivery,
  type DeliveryLease,
  type DeliveryListInput,
  type DeliveryRef,
  DeliveryStatus,
  type DeliverySummary,
  type ExpectedDelivery,
  type GivenLeaseCount,
  type InboxCaution,
  type GiveBackEventName,
  type InboxEvent,
  type LeaseCount,
  type LeasedRef,
  type NewDelivery,
  type StoredDelivery,
} from './types';
export type {
  InboxConsumerStore,
  InboxEndpointStore,
  InboxLeaseStore,
  InboxOperatorStore,
  InboxReader,
  InboxReceiptsLink,
  InboxRelayStore,
  InboxStore,
  InboxWorkerStore,
  LeaseInput,
  LeaseRefsInput,
} from './inbox-store';
