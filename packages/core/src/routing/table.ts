/**
 * @module A route table compiled once: exact names in a map, prefix wildcards longest first, the
 * catch-all last; and the payload a route's schema and handler get from a request.
 */
import { ConfigError } from '../errors';
import type { HttpRequest } from '../http/types';
import { isStandardSchema, type StandardSchema } from './schema';
import type { RouteContext, UnroutedPolicy } from './types';

/** One route, as the table keeps it. */
export interface CompiledRoute {
  /** The key it was written under: `'invoice.paid'`, `'invoice.*'` or `'*'`. */
  readonly pattern: string;
  readonly schema: StandardSchema | undefined;
  readonly handler: (event: unknown, context: RouteContext<unknown>) => unknown;
}

/** The routes of a route set, matched by event name. */
export interface CompiledTable {
  readonly unrouted: UnroutedPolicy;
  /** The route for an event name (exact, then the longest matching prefix, then `'*'`); `undefined` when none takes it. */
  match(name: string | undefined): CompiledRoute | undefined;
}

const POLICIES: ReadonlySet<string> = new Set(['ignore', 'record', 'refuse']);

/** One table entry checked: a function, or `{ schema, handler }` with a Standard Schema. */
function compileRoute(pattern: string, value: unknown): CompiledRoute {
  if (typeof value === 'function')
    return { pattern, schema: undefined, handler: value as CompiledRoute['handler'] };
  const entry = value as { schema?: unknown; handler?: unknown } | null;
  if (typeof entry === 'object' && entry !== null && typeof entry.handler === 'function') {
    if (!isStandardSchema(entry.schema))
      throw new ConfigError(
        `routes.${pattern}`,
        'schema must be a Standard Schema (zod, valibot, arktype…)',
      );
    return { pattern, schema: entry.schema, handler: entry.handler as CompiledRoute['handler'] };
  }
  throw new ConfigError(
    `routes.${pattern}`,
    'must be a handler function or { schema, handler } (validated(schema, handler))',
  );
}

/**
 * Compiles `table`. A key ending in `*` is a prefix wildcard (`'invoice.*'` takes every name that
 * starts with `invoice.`); `'*'` alone takes every event no other route takes.
 * @throws {ConfigError} naming the entry or option that is not valid.
 */
export function compileTable(table: unknown, unrouted: unknown = 'ignore'): CompiledTable {
  if (typeof table !== 'object' || table === null)
    throw new ConfigError('routes', 'must be an object of event names to handlers');
  if (typeof unrouted !== 'string' || !POLICIES.has(unrouted))
    throw new ConfigError('unrouted', `must be 'ignore', 'record' or 'refuse'`);
  const exact = new Map<string, CompiledRoute>();
  const prefixes: { prefix: string; route: CompiledRoute }[] = [];
  let all: CompiledRoute | undefined;
  for (const [pattern, value] of Object.entries(table)) {
    if (pattern === '') throw new ConfigError('routes', 'an event name cannot be empty');
    const route = compileRoute(pattern, value);
    if (pattern === '*') all = route;
    else if (pattern.endsWith('*')) prefixes.push({ prefix: pattern.slice(0, -1), route });
    else exact.set(pattern, route);
  }
  if (exact.size === 0 && prefixes.length === 0 && all === undefined)
    throw new ConfigError('routes', 'must name at least one route');
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  return {
    unrouted: unrouted as UnroutedPolicy,
    match(name) {
      if (name === undefined) return all;
      const found = exact.get(name);
      if (found) return found;
      for (const { prefix, route } of prefixes) if (name.startsWith(prefix)) return route;
      return all;
    },
  };
}

/** True for a body a framework parsed into data (not bytes, not text). */
function parsed(body: unknown): body is object {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Buffer.isBuffer(body) &&
    !(body instanceof Uint8Array)
  );
}

/**
 * The event a route's schema and handler get: the framework's parsed body, else the raw bytes
 * parsed as JSON (or as a form, for a form body); the text itself when it is neither.
 */
export function payloadOf(request: HttpRequest): unknown {
  const { body, rawBody } = request;
  if (parsed(body)) return body;
  const bytes = body instanceof Uint8Array ? Buffer.from(body) : rawBody;
  const text = typeof body === 'string' ? body : bytes?.toString('utf8');
  if (text === undefined) return undefined;
  const type = request.headers['content-type'];
  if (typeof type === 'string' && type.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
