/**
 * The outbox dispatcher's options: each invalid one refused with a ConfigError naming it, the
 * send's deadline held below 80 % of the lease, and the defaults a dispatcher runs with.
 */
import { ConfigError } from '../../src';
import { InMemoryInbox } from '../../src/inbox';
import { createOutboxDispatcher, type OutboxDispatcherOptions } from '../../src/outbox';

const outbox = new InMemoryInbox();
const senders = { http: async () => undefined };

/** The option the ConfigError thrown by building a dispatcher with `options` names. */
function refused(options: Partial<OutboxDispatcherOptions>): string {
  try {
    createOutboxDispatcher({ outbox, senders, ...options } as OutboxDispatcherOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).option;
  }
  throw new Error('expected a ConfigError');
}

it.each<[string, Partial<OutboxDispatcherOptions>]>([
  ['outbox', { outbox: undefined }],
  ['outbox', { outbox: { lease: async () => [] } as never }],
  ['senders', { senders: undefined }],
  ['senders', { senders: {} }],
  ['senders', { senders: { 'my sender': async () => undefined } }],
  ['senders', { senders: { http: 'fetch' as never } }],
  ['concurrency', { concurrency: 0 }],
  ['concurrency', { concurrency: 1.5 }],
  ['concurrency', { concurrency: 1001 }],
  ['pollIntervalMs', { pollIntervalMs: 0 }],
  ['visibilityTimeoutSeconds', { visibilityTimeoutSeconds: 0 }],
  ['sendTimeoutMs', { sendTimeoutMs: 0 }],
  ['sendTimeoutMs', { sendTimeoutMs: 48_000 }],
  ['sendTimeoutMs', { visibilityTimeoutSeconds: 10, sendTimeoutMs: 8000 }],
  ['maxFailures', { maxFailures: 0 }],
  ['maxFailures', { maxFailures: 2.5 }],
  ['backoffBaseMs', { backoffBaseMs: -1 }],
  ['backoffMaxMs', { backoffMaxMs: Number.NaN }],
  ['random', { random: 0.5 as never }],
  ['onEvent', { onEvent: 'log' as never }],
])('refuses an invalid %s', (option, options) => {
  expect(refused(options)).toBe(option);
});

it('names the lease the send must stay under', () => {
  expect(() =>
    createOutboxDispatcher({ outbox, senders, visibilityTimeoutSeconds: 10, sendTimeoutMs: 9000 }),
  ).toThrow(
    'Invalid option "sendTimeoutMs": must be below 80 % of the lease (visibilityTimeoutSeconds: 10 s), so below 8000 ms; got 9000',
  );
});

it('takes a send deadline just under 80 % of the lease, and a short lease without a deadline given', () => {
  expect(
    createOutboxDispatcher({ outbox, senders, visibilityTimeoutSeconds: 10, sendTimeoutMs: 7999 })
      .state,
  ).toBe('idle');
  // 30 s would not fit under a 10 s lease: the default is half the lease then.
  expect(createOutboxDispatcher({ outbox, senders, visibilityTimeoutSeconds: 10 }).state).toBe(
    'idle',
  );
  expect(createOutboxDispatcher({ outbox, senders }).state).toBe('idle');
});
