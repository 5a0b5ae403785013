/**
 * @module How a row of `send`'s signer tables is made: the credential a preset signs with
 * (`--secret`, the private key of `--key-file`, or HTTP Basic), the kit signer made from it and the
 * URL, and what is sent with that signer (the payload as one event, or its items as one batch). A
 * row names only what is its provider's own: the kit's signer, the option its secret goes in, what
 * it sends.
 */
import { basicPair, itemsOf, need, privateKeyPem } from './credentials';
import type { Delivery, SendRequest, Wired } from './wired';

/** What a row sends with its kit signer, given the request. */
export type Send<S> = (signer: S, request: SendRequest) => Delivery;

/** Sends the payload as one event. */
export const oneEvent: Send<{ event(payload: object): Delivery }> = (signer, r) =>
  signer.event(r.payload);

/** Sends the payload as one event, with the fields of the delivery its provider sends (its id). */
export const oneEventWith =
  <D>(
    delivery: (request: SendRequest) => D,
  ): Send<{ event(payload: object, delivery: D): Delivery }> =>
  (signer, r) =>
    signer.event(r.payload, delivery(r));

/** Sends the payload's items (an array, one object, or `--body`'s JSON) as one batch. */
export const oneBatch: Send<{ batch(items: object[]): Delivery }> = (signer, r) =>
  signer.batch(itemsOf(r.preset, r.payload));

/**
 * A preset signed with `--secret`, which its provider calls `option`: `make` builds the kit signer
 * from the URL and the secret (and the request's other fields where it needs them), `send` sends
 * with it. `shown` is the name `--list` prints, where it is not the option's.
 */
export function bySecretWith<S>(
  option: string,
  make: (url: string, secret: string, request: SendRequest) => S,
  send: Send<S>,
  shown = option,
): Wired {
  return {
    needs: `--secret <${shown}>`,
    sign: (r) => send(make(r.url, need(r.preset, r.credentials, 'secret', option), r), r),
  };
}

/**
 * A preset whose kit signer `signer` takes the URL and `--secret` as its option `option`
 * (`signer({ url, [option]: secret })`); `send` sends with it, `shown` as in {@link bySecretWith}.
 */
export function bySecret<K extends string, S>(
  signer: (options: { url: string } & Record<K, string>) => S,
  option: K,
  send: Send<S>,
  shown: string = option,
): Wired {
  const make = (url: string, secret: string) =>
    signer({ url, [option]: secret } as { url: string } & Record<K, string>);
  return bySecretWith(option, make, send, shown);
}

/**
 * A preset whose kit signer `signer` takes the URL and the private key PEM of `--key-file`, of the
 * kind `what` names.
 */
export function byKeyFile<S>(
  signer: (options: { url: string; privateKey: string }) => S,
  what: string,
  send: Send<S>,
): Wired {
  return {
    needs: `--key-file <${what}>`,
    sign: (r) =>
      send(signer({ url: r.url, privateKey: privateKeyPem(r.preset, r.credentials, what) }), r),
  };
}

/**
 * A preset whose kit signer `signer` takes HTTP Basic credentials (`--username`/`--password`, or
 * `--secret user:password`); where its provider has a fixed `login`, `--secret` alone is the
 * password.
 */
export function byBasic<S>(
  signer: (options: { url: string; username: string; password: string }) => S,
  send: Send<S>,
  login?: string,
): Wired {
  return {
    needs: login === undefined ? '--username --password' : '--password [--username]',
    sign: (r) => {
      const [username, password] = basicPair(r.preset, r.credentials, login);
      return send(signer({ url: r.url, username, password }), r);
    },
  };
}
