/**
 * @module The inbox engine of an endpoint that hands the requests it does not store (reads,
 * `onMissingKey: 'passthrough'`, a preset's pass-through) to a `fallback` handler of its own: the
 * fetch and Lambda adapters' `inbox(options, fallback)`, which have no framework's next handler.
 */
import { ConfigError } from '../errors';
import { createInboxEngine, type InboxEngine, type InboxOptions } from './accept';

/**
 * {@link createInboxEngine} for an endpoint with a `fallback`: `fallback` must be a function or
 * nothing, and must be given when some requests are handed on.
 * @throws {ConfigError} naming `fallback`, the first invalid inbox option, or `onMissingKey`.
 */
export function createFallbackInboxEngine<Native>(
  options: InboxOptions<Native>,
  fallback: unknown,
): InboxEngine<Native> {
  if (fallback !== undefined && typeof fallback !== 'function')
    throw new ConfigError('fallback', 'inbox(options, fallback) takes a function or nothing');
  const engine = createInboxEngine<Native>(options);
  if (
    fallback === undefined &&
    (options.onMissingKey === 'passthrough' || options.preset?.passThrough)
  )
    throw new ConfigError(
      'onMissingKey',
      'a request handed on needs a handler: pass one as inbox(options, fallback)',
    );
  return engine;
}
