/**
 * `fastifyDashboard`: the dashboard as a Fastify plugin (4 and 5). Not wrapped in
 * fastify-plugin: its form parser stays inside its own encapsulation context.
 * @module @webhook-idempotency/dashboard/fastify
 */
import { ConfigError } from '@webhook-idempotency/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createDashboard } from '../dashboard';
import type { DashboardOptions } from '../types';
import { FORM_LIMIT_BYTES } from './form-body';

/** Options of {@link fastifyDashboard}: the dashboard's, with Fastify's `request` in `authorize`. */
export type FastifyDashboardOptions = DashboardOptions<FastifyRequest>;

/**
 * The dashboard as a Fastify plugin: registers its routes under `basePath` (every method; what
 * it does not serve it answers 405 or 404 itself).
 * @throws {ConfigError} at registration, naming a missing or invalid option (`authorize` is required;
 * the register option `prefix` is refused: say the whole path in `basePath`).
 * @example
 * await app.register(fastifyDashboard, { basePath: '/admin/webhooks', authorize: (request) => isAdmin(request), receipts });
 * @see packages/dashboard/README.md
 */
export async function fastifyDashboard(
  fastify: FastifyInstance,
  options: FastifyDashboardOptions & {
    prefix?: string;
    logLevel?: string;
    logSerializers?: unknown;
  },
): Promise<void> {
  const {
    prefix,
    logLevel: _logLevel,
    logSerializers: _serializers,
    ...dashboardOptions
  } = options;
  if (prefix)
    throw new ConfigError('prefix', 'say the whole path in basePath instead of a register prefix');
  const dashboard = createDashboard(dashboardOptions as FastifyDashboardOptions);
  // The dashboard's own form parser, in its own context: one the application registered for its
  // routes (@fastify/formbody, say) would hand over parsed fields, and adding a second one throws.
  if (fastify.hasContentTypeParser('application/x-www-form-urlencoded'))
    fastify.removeContentTypeParser('application/x-www-form-urlencoded');
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const body: unknown = request.body;
    const record = await dashboard.handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      rawBody: Buffer.isBuffer(body) ? body : undefined,
      body,
      native: request,
      secure: request.protocol === 'https',
    });
    return reply.code(record.status).headers(record.headers).send(record.body);
  };
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  fastify.route({ method: methods, url: dashboard.basePath || '/', handler });
  fastify.route({ method: methods, url: `${dashboard.basePath}/*`, handler });
}
