/**
 * `fastifyDashboard`: the dashboard as a Fastify plugin (4 and 5). Not wrapped in
 * fastify-plugin: its form parser stays inside its own encapsulation context.
 * @module @webhook-idempotency/dashboard/fastify
 */
import { ConfigError } from '@webhook-idempotency/core';
import { REQUEST_TOO_LARGE } from '@webhook-idempotency/core/adapter';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createDashboard } from '../dashboard';
import type { DashboardOptions } from '../types';
import { formTooLarge, readForm } from './form-body';

/** The body of a form the parser left to the handler, which reads it with the response at hand. */
const UNREAD_FORM: unique symbol = Symbol('form read by the handler');

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
  // It leaves the form to the handler, which reads it as the other Node mounts do (under the
  // limit; the rest of one past it read off while the 413 goes out).
  if (fastify.hasContentTypeParser('application/x-www-form-urlencoded'))
    fastify.removeContentTypeParser('application/x-www-form-urlencoded');
  fastify.addContentTypeParser('application/x-www-form-urlencoded', (_request, _payload, done) =>
    done(null, UNREAD_FORM),
  );
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed: unknown = request.body;
    const unread = parsed === UNREAD_FORM;
    // readForm reads only a POST's: another method's form is left unread, as on the other mounts.
    const form = unread ? await readForm(request.raw, reply.raw) : undefined;
    if (form === REQUEST_TOO_LARGE)
      return reply.code(413).headers(formTooLarge.headers).send(formTooLarge.body);
    const body = unread ? form : parsed;
    const record = await dashboard.handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      rawBody: form,
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
