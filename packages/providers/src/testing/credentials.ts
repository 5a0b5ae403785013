/**
 * @module Signers of the providers that authenticate with a static credential instead of a
 * signature (Telegram's and GitLab's secret tokens, HTTP Basic for Postmark, Payme and Uzum
 * Bank). A retry is the same request; the forged copy carries another token or password.
 */
import { basic, objectOf, optionsOf, type Payload, text } from './common';
import { type Delivery, type DeliveryOptions, newId, type SignerOptions } from './delivery';
import { keyedSigner, secretOption } from './post';

/** The event method of a signer whose credential is a header: `credential(forged)` gives it. */
export function withCredential(
  name: string,
  options: SignerOptions,
  credential: (forged: boolean) => Record<string, string>,
) {
  const forger = () => [credential(true)];
  const { url, post } = keyedSigner(name, options, [credential(false)], forger);
  return (
    payload: Payload,
    delivery: DeliveryOptions = {},
    extra: Record<string, string> = {},
    rewrite?: (at: number) => Payload,
    path = '',
  ): Delivery => {
    const body = rewrite ? ({ at }: { at: number }) => rewrite(at) : payload;
    return post(body, delivery, ({ key }) => ({ ...extra, ...key }), url + path);
  };
}

/** Options of the {@link telegram} signer. */
export interface TelegramSignerOptions extends SignerOptions {
  /** The `secret_token` given to setWebhook. */
  secretToken: string;
}

/** A fake Telegram Bot API: the update with `X-Telegram-Bot-Api-Secret-Token`. */
export function telegram(options: TelegramSignerOptions) {
  const token = secretOption('telegram', options, 'secretToken');
  const send = withCredential('telegram', options, (forged) => ({
    'x-telegram-bot-api-secret-token': forged ? `forged-${token}`.slice(0, 256) : token,
  }));
  return {
    event: (update: Payload, delivery?: DeliveryOptions): Delivery => send(update, delivery),
  };
}

/** Options of one GitLab delivery. */
export interface GitLabDeliveryOptions extends DeliveryOptions {
  /** `X-Gitlab-Event`. Defaults to `'Push Hook'`. */
  event?: string;
  /** `Idempotency-Key`, kept by every retry of the event. Defaults to a new one. */
  idempotencyKey?: string;
}

/** A fake GitLab: `X-Gitlab-Token` (the secret token, not a signature), `X-Gitlab-Event` and `Idempotency-Key`. */
export function gitlab(options: SignerOptions & { secretToken: string }) {
  const token = secretOption('gitlab', options, 'secretToken');
  const send = withCredential('gitlab', options, (forged) => ({
    'x-gitlab-token': forged ? `forged-${token}` : token,
  }));
  return {
    event: (payload: Payload, delivery: GitLabDeliveryOptions = {}): Delivery => {
      const id = delivery.idempotencyKey ?? newId();
      return send(payload, delivery, {
        'x-gitlab-event': delivery.event ?? 'Push Hook',
        'x-gitlab-event-uuid': id,
        'idempotency-key': id,
      });
    },
  };
}

/** Options of a signer whose provider sends HTTP Basic credentials. */
export interface BasicSignerOptions extends SignerOptions {
  username: string;
  password: string;
}

/** The Basic credential, and the forger's (another password). */
const basicOf = (login: string, password: string) => (forged: boolean) => ({
  authorization: basic(login, forged ? `forged-${password}` : password),
});

/** The Basic credential of a signer's `username` and `password`, and the forger's. */
export const basicOptions = (name: string, options: BasicSignerOptions) =>
  basicOf(secretOption(name, options, 'username'), secretOption(name, options, 'password'));

/** A fake Postmark: the record with the Basic credentials of the webhook URL. */
export function postmark(options: BasicSignerOptions) {
  const send = withCredential('postmark', options, basicOptions('postmark', options));
  return {
    event: (record: Payload, delivery?: DeliveryOptions): Delivery => send(record, delivery),
  };
}

/** Options of the {@link payme} signer. */
export interface PaymeSignerOptions extends SignerOptions {
  /** The cash-desk key: the Basic password. */
  password: string;
  /** The Basic login. Defaults to `'Paycom'`. */
  login?: string;
}

/** A fake Payme (Paycom) Merchant API: JSON-RPC 2.0 requests over HTTP Basic. */
export function payme(options: PaymeSignerOptions) {
  const o = optionsOf('payme', options);
  const login = o.login === undefined ? 'Paycom' : text('payme', 'login', o.login);
  const send = withCredential(
    'payme',
    options,
    basicOf(login, text('payme', 'password', o.password)),
  );
  let next = 1;
  return {
    event: (request: Payload, delivery?: DeliveryOptions): Delivery => send(request, delivery),
    /** One JSON-RPC call, `{ method, params, id }` (the id counting up unless given). */
    rpc(
      method: string,
      params: object,
      delivery: DeliveryOptions & { id?: number | string } = {},
    ): Delivery {
      return send({ method, params, id: delivery.id ?? next++ }, delivery);
    },
  };
}

/** The Merchant API operations of Uzum Bank, each its own path. */
export type UzumOperation = 'check' | 'create' | 'confirm' | 'reverse' | 'status';

/**
 * A fake Uzum Bank Merchant API: JSON with HTTP Basic, POSTed to `<url>/<operation>`; an object
 * payload gets the request's `timestamp` (milliseconds) unless it has one, a retry its own.
 */
export function uzum(options: BasicSignerOptions) {
  const send = withCredential('uzum', options, basicOptions('uzum', options));
  const operation =
    (name: UzumOperation) =>
    (payload: Payload, delivery?: DeliveryOptions): Delivery => {
      const object = objectOf(payload);
      const stamped = object && !('timestamp' in object);
      const rewrite = (at: number) => (stamped ? { ...object, timestamp: at } : payload);
      return send(payload, delivery, {}, rewrite, `/${name}`);
    };
  return {
    check: operation('check'),
    create: operation('create'),
    confirm: operation('confirm'),
    reverse: operation('reverse'),
    status: operation('status'),
  };
}
