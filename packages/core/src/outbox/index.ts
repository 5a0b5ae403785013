/**
 * The transactional outbox (docs/outbox.md): a handler records outbound side effects (an HTTP
 * call, an email, anything a sender you plug sends) in its own transaction; a dispatcher sends
 * what committed, each with its effect key on every attempt, and nothing of a run that rolled
 * back. What an application writes against: `Outbox`, the dispatcher, the HTTP and email
 * senders, the message and sender types.
 * @module @webhook-idempotency/core/outbox
 */
export {
  createOutboxDispatcher,
  type OutboxDispatcher,
  type OutboxDispatcherOptions,
} from './dispatcher';
export {
  type EmailMessage,
  type EmailSenderOptions,
  emailSender,
  type MailTransport,
} from './email-sender';
export { type HttpMessage, type HttpSenderOptions, httpSender } from './http-sender';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  Outbox,
  type OutboxContext,
  type OutboxOptions,
} from './outbox';
export { OutboxHeader, type OutboxRow, outboxRowOf } from './rows';
export {
  type OutboxDispatchStore,
  type OutboxEvent,
  type OutboxMessage,
  type OutboxReceipt,
  type OutboxRecordStore,
  type OutboxRef,
  type OutboxSender,
  PermanentSendFailure,
  type SendInput,
} from './types';
