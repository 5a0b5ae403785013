/**
 * @module One-line helpers to send a delivery through a test client: supertest, Fastify's
 * `inject`, a fetch `Request`. Structural: each takes the client you already have, so the kit
 * imports none of them.
 */

/** What the helpers send: a {@link Delivery} or a {@link Challenge}. */
export interface Sendable {
  readonly method: 'POST' | 'GET';
  readonly url: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** The part of a supertest request the helper uses (superagent's chain). */
interface SupertestChain {
  set(field: Record<string, string>): SupertestChain;
  /** Replaces the serializer: superagent would write a Buffer as JSON under a JSON content-type. */
  serialize(serializer: (body: Buffer) => Buffer): SupertestChain;
  send(data: Buffer): SupertestChain;
}

/** The part of supertest's `request(app)` (or an agent) the helper uses: `T` is its request, `Test`. */
export interface SupertestClient<T> {
  post(url: string): T;
  get(url: string): T;
}

/** What {@link inject} passes to Fastify's `app.inject`. */
export interface InjectRequest {
  method: 'POST' | 'GET';
  url: string;
  headers: Record<string, string>;
  payload?: Buffer;
}

/** The part of Fastify's `inject` answer the helper promises. */
export interface InjectResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body: string;
  readonly rawPayload: Buffer;
}

/** Something with Fastify's `inject(options)`: a Fastify app. */
export interface Injectable {
  inject(options: InjectRequest): PromiseLike<InjectResponse>;
}

/**
 * Sends `delivery` with supertest: `await supertest(request(app), delivery)`. Returns supertest's
 * own request (a thenable of its response), the method, path, headers and exact bytes set.
 */
export function supertest<T>(client: SupertestClient<T>, delivery: Sendable): T {
  const headers = { ...delivery.headers };
  if (delivery.method === 'GET') {
    const read = client.get(delivery.path);
    (read as SupertestChain).set(headers);
    return read;
  }
  const post = client.post(delivery.path);
  (post as SupertestChain)
    .set(headers)
    .serialize((body) => body)
    .send(delivery.body);
  return post;
}

/** The `app.inject(...)` options of `delivery`. */
export function injectOptions(delivery: Sendable): InjectRequest {
  const request: InjectRequest = {
    method: delivery.method,
    url: delivery.path,
    headers: { ...delivery.headers },
  };
  if (delivery.method !== 'GET') request.payload = delivery.body;
  return request;
}

/** Sends `delivery` through Fastify's `inject`: `await inject(app, delivery)`. */
export async function inject(app: Injectable, delivery: Sendable): Promise<InjectResponse> {
  return app.inject(injectOptions(delivery));
}

/**
 * `delivery` as a fetch `Request`, at its own URL or at `baseUrl` (its path and query kept):
 * `await handler(toRequest(delivery))`, `await app.request(toRequest(delivery))` for Hono.
 */
export function toRequest(delivery: Sendable, baseUrl?: string | URL): Request {
  const url = baseUrl === undefined ? delivery.url : new URL(delivery.path, baseUrl).toString();
  return new Request(url, {
    method: delivery.method,
    headers: delivery.headers,
    ...(delivery.method === 'GET' ? {} : { body: new Uint8Array(delivery.body) }),
  });
}

/** The helpers together: `send.supertest(request(app), delivery)`, `send.inject(app, delivery)`. */
export const send = { supertest, inject, injectOptions, toRequest } as const;
