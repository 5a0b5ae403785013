/** @module The Fastify plugin: guards the routes of its encapsulation context, with per-route `config.idempotency`. */
import { ConfigError } from '@webhook-idempotency/core';
import { createEngine, type Engine, mergeOptions } from '@webhook-idempotency/core/adapter';
import { flushIgnored } from '@webhook-idempotency/core/routes';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { beginWith, idempotencyOnError, idempotencyOnSend, kState } from './hooks';
import type { FastifyIdempotencyOptions } from './types';

const list = <T>(hook: T | T[] | undefined): T[] =>
  hook === undefined ? [] : Array.isArray(hook) ? hook : [hook];

async function idempotencyPlugin(
  fastify: FastifyInstance,
  options: FastifyIdempotencyOptions,
): Promise<void> {
  const { global = true, ...base } = options;
  if (typeof global !== 'boolean') throw new ConfigError('global', 'must be a boolean');
  // The engines' stores: their ignored-event counts are written when the app closes.
  const engines = new Set<Engine<FastifyRequest>>();
  const made = (engine: Engine<FastifyRequest>) => engines.add(engine) && engine;
  // Options are resolved here, at registration, or per route in onRoute: never per request.
  let shared: Engine<FastifyRequest> | undefined = global ? made(createEngine(base)) : undefined;
  const sharedEngine = (): Engine<FastifyRequest> => {
    shared ??= made(createEngine(base));
    return shared;
  };
  fastify.addHook('onClose', async function idempotencyOnClose() {
    await Promise.all([...engines].map((engine) => flushIgnored(engine.config.guard.store)));
  });
  if (!fastify.hasRequestDecorator(kState)) fastify.decorateRequest(kState, null);
  if (!fastify.hasRequestDecorator('idempotency'))
    fastify.decorateRequest('idempotency', undefined);

  fastify.addHook('onRoute', function idempotencyOnRoute(route: RouteOptions) {
    const own = route.config?.idempotency;
    if (own === false || (own === undefined && !global)) return;
    const engine =
      typeof own === 'object' ? made(createEngine(mergeOptions(base, own))) : sharedEngine();
    route.preHandler = [...list(route.preHandler), beginWith(engine)] as RouteOptions['preHandler'];
    route.onError = [...list(route.onError), idempotencyOnError] as RouteOptions['onError'];
    route.onSend = [...list(route.onSend), idempotencyOnSend] as RouteOptions['onSend'];
  });
}

/**
 * The Fastify plugin (`fastify-plugin`, Fastify 4 and 5): every retry of a webhook is answered
 * from its receipt. Register it inside the encapsulated context of your webhook routes, after a
 * content-type parser that keeps the raw bytes (`rawBodyJsonParser`).
 * @throws {ConfigError} at registration, naming an invalid option.
 * @example
 * app.register(async (hooks) => {
 *   hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBodyJsonParser);
 *   await hooks.register(fastifyIdempotency, { store, provider: 'github', key: (req) => req.headers['x-github-delivery'] as string });
 *   hooks.post('/webhooks/github', async () => ({ ok: true }));
 * });
 * @see docs/adapters/fastify.md
 */
export const fastifyIdempotency = fp(idempotencyPlugin, {
  fastify: '4.x || 5.x',
  name: '@webhook-idempotency/fastify',
});

/** The plugin as the default export, as `@fastify/*` plugins do: `import fastifyIdempotency from '@webhook-idempotency/fastify'`. */
export default fastifyIdempotency;
