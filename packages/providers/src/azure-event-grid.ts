/**
 * @module Azure Event Grid preset (webhook delivery, Event Grid or CloudEvents schema): the secret
 * you put in the endpoint URL's query (Event Grid signs nothing), each event of the batch an item
 * keyed on its `id`, and the subscription validation event answered with its `validationCode`.
 */
import { ConfigError, type HttpRequest } from '@webhook-idempotency/core';
import { type BatchRow, batchedPreset, jsonArrayBody } from './batched';
import { secretMember } from './keyring-members';
import type { PresetFactory } from './events';
import { optionalString, requireOptions } from './options';
import { idPart, isJsonObject, jsonBody, type JsonObject } from './request-fields';
import { handshakeJson } from './response';
import { firstMatch, type SecretOptions } from './secrets';
import { secretEquals } from './signature';
import { tokenKeyring } from './token-header';

/**
 * Options of {@link azureEventGrid}: `secret`, the value you put in the endpoint URL's query
 * (`https://example.com/webhooks/eventgrid?code=<secret>`), or several while you change it; or
 * `resolveSecret`, a lookup per request.
 */
export type AzureEventGridOptions = SecretOptions<'secret', string> & {
  /** The query parameter that carries the secret. Defaults to `code`. */
  queryParameter?: string;
};

/** One event as this preset reads it: `id` (its key) and `eventType` (Event Grid schema) or `type` (CloudEvents). */
export interface AzureEventGridMinimalEvent {
  readonly id: string;
  readonly eventType?: string;
  readonly type?: string;
}

/** Event Grid's event types, each an {@link AzureEventGridMinimalEvent}. */
export type AzureEventGridMinimalEvents = Record<string, AzureEventGridMinimalEvent>;

const VALIDATION = 'Microsoft.EventGrid.SubscriptionValidationEvent';
const PARAMETER = /^[A-Za-z0-9._~-]+$/;

/** The events of a delivery: a JSON array (either schema), or one CloudEvent in structured mode. */
function gridEvents(request: HttpRequest): readonly unknown[] | undefined {
  const array = jsonArrayBody(request);
  if (array !== undefined) return array.length === 0 ? undefined : array;
  const one = jsonBody(request);
  return one !== undefined && one.specversion !== undefined ? [one] : undefined;
}

/** An event's name: `eventType` (Event Grid schema) or `type` (CloudEvents). */
const typeOf = (event: JsonObject) => idPart(event.eventType) ?? idPart(event.type);

/** The answer to a subscription validation event: `{"validationResponse": code}`. */
function validationAnswer(request: HttpRequest) {
  const events = gridEvents(request);
  const [event] = events ?? [];
  if (events?.length !== 1 || !isJsonObject(event) || typeOf(event) !== VALIDATION)
    return undefined;
  const code = isJsonObject(event.data) ? idPart(event.data.validationCode) : undefined;
  // A validation event is never a delivery: without a code it is refused, not booked.
  if (code === undefined) return handshakeJson(400, '{"error":"no validationCode"}');
  return handshakeJson(200, JSON.stringify({ validationResponse: code }));
}

/** The match of the keyring: the digest of the secret the URL's `parameter` carries. */
function querySecretMatch(parameter: string) {
  return (request: HttpRequest, digests: readonly Buffer[]): Buffer | undefined => {
    const given = new URLSearchParams(request.url.split('?')[1] ?? '').get(parameter);
    return given === null || given === ''
      ? undefined
      : firstMatch(digests, (expected) => secretEquals(given, expected));
  };
}

/** The query parameter that carries the secret: `queryParameter`, checked, or `code`. */
function queryParameterOf(options: AzureEventGridOptions): string {
  const o = requireOptions('azureEventGrid', options);
  const parameter = optionalString('azureEventGrid', 'queryParameter', o.queryParameter, 'code');
  if (!PARAMETER.test(parameter))
    throw new ConfigError(
      'queryParameter',
      `azureEventGrid() needs "queryParameter" as a plain query parameter name, got "${parameter}"`,
    );
  return parameter;
}

/**
 * Azure Event Grid preset: events a webhook event subscription delivers (Blob Storage, Resource
 * groups, Service Bus, custom topics…), in the Event Grid schema or the CloudEvents 1.0 schema.
 *
 * - **Batched**: each event of the array (or the one structured CloudEvent) gets a receipt of its
 *   own, keyed on its `id`, which Event Grid keeps on every retry. Run them with
 *   `idempotency.batch.each`.
 * - **Handshake**: the `SubscriptionValidationEvent` Event Grid sends when you create the
 *   subscription is answered `{"validationResponse": code}` once the URL secret matched, with no
 *   receipt and without your handler. The CloudEvents schema's `OPTIONS` handshake is not
 *   answered by the preset: answer it in your own route.
 * - **Authentication**: Event Grid signs nothing. The query parameter `queryParameter` (`code` by
 *   default) of the URL must equal the secret, compared in constant time. It covers neither the
 *   body nor a time: anyone who saw one request can send it again or send other events with it.
 * - **Retention**: 3 days. Event Grid retries with exponential backoff for up to 24 hours (the
 *   default event time-to-live) and 30 attempts.
 *
 * @example
 * const preset = providers.azureEventGrid({ secret: process.env.EVENT_GRID_URL_SECRET! });
 * @throws {ConfigError} naming `secret` or `queryParameter` when invalid.
 * @see docs/providers.md#azure-event-grid
 */
export const azureEventGrid: PresetFactory<AzureEventGridOptions, AzureEventGridMinimalEvents> =
  /* @__PURE__ */ secretMember<AzureEventGridOptions, Buffer, BatchRow<Buffer, unknown>>({
    provider: 'azure-event-grid',
    factory: 'azureEventGrid',
    secret: [tokenKeyring, 'secret', 'the URL secret'],
    family: batchedPreset,
    row: (options) => {
      const parameter = queryParameterOf(options);
      return {
        keyDescription: 'id of each event',
        needsRawBody: false,
        retentionDays: 3,
        items: gridEvents,
        item: (event) => ({ id: isJsonObject(event) ? idPart(event.id) : undefined }),
        handshake: validationAnswer,
        signedWith: querySecretMatch(parameter),
        itemType: (event) => (isJsonObject(event) ? typeOf(event) : undefined),
      };
    },
  });
