/**
 * @module Where the Plaid preset gets the public key a webhook's token names (`kid`): the user's
 * `fetchKey`, which calls Plaid's `/webhook_verification_key/get`. The `kid` is read before
 * anything is verified, so every bound here holds against a sender who signs nothing: a key is
 * fetched once and kept, a failed or unknown `kid` is not asked again for a minute, and at most
 * {@link KEY_FETCHES_PER_MINUTE} fetches start in any minute.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { ExpiringLru } from './secret-resolver';

/** A verification key as `/webhook_verification_key/get` returns it: a P-256 JWK. */
export interface PlaidVerificationKey {
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
  readonly y: string;
  readonly kid?: string;
  readonly alg?: string;
  readonly use?: string;
  readonly created_at?: number;
  /** Unix seconds after which Plaid no longer signs with it; `null` while current. */
  readonly expired_at?: number | null;
}

/** Your call of Plaid's `/webhook_verification_key/get` for `keyId`: its `key`, or `undefined`. */
export type PlaidKeyFetcher = (keyId: string) => Promise<PlaidVerificationKey | undefined>;

/** How many keys, and how many failed ids, are remembered. */
export const KEY_CACHE_SIZE = 16;
/** At most this many key fetches start in any minute (by the preset's clock). */
export const KEY_FETCHES_PER_MINUTE = 10;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Until when (ms) a JWK may verify: its `expired_at`, if set, and never past `latest`. */
function inForceUntil(jwk: PlaidVerificationKey, latest: number): number {
  return typeof jwk.expired_at === 'number' ? Math.min(jwk.expired_at * 1000, latest) : latest;
}

/** The key of a JWK, if it is a P-256 public key. */
function keyOf(jwk: PlaidVerificationKey | undefined): KeyObject | undefined {
  if (jwk === undefined || jwk.kty !== 'EC' || jwk.crv !== 'P-256') return undefined;
  const { kty, crv, x, y } = jwk;
  return createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' });
}

/** The keys of one fetcher, by `kid`: cached, bounded, failures remembered. */
export function plaidKeySource(fetchKey: PlaidKeyFetcher, now: () => number) {
  const keys = new ExpiringLru<KeyObject>(KEY_CACHE_SIZE);
  const failed = new ExpiringLru<true>(KEY_CACHE_SIZE);
  const running = new Map<string, Promise<KeyObject | undefined>>();
  let window = { start: Number.NEGATIVE_INFINITY, fetches: 0 };

  const budget = (at: number): boolean => {
    if (at - window.start >= MINUTE_MS) window = { start: at, fetches: 0 };
    return window.fetches++ < KEY_FETCHES_PER_MINUTE;
  };
  const fetchOnce = async (kid: string, at: number): Promise<KeyObject | undefined> => {
    let key: KeyObject | undefined;
    let until = at + DAY_MS;
    try {
      const jwk = await fetchKey(kid);
      key = keyOf(jwk);
      if (jwk !== undefined) until = inForceUntil(jwk, until);
    } catch {
      key = undefined;
    }
    if (key === undefined || until <= now()) {
      failed.set(kid, true, now() + MINUTE_MS);
      return undefined;
    }
    keys.set(kid, key, until);
    return key;
  };

  return (kid: string): Promise<KeyObject | undefined> => {
    const at = now();
    const known = keys.get(kid, at);
    if (known !== undefined) return Promise.resolve(known);
    if (failed.get(kid, at) !== undefined) return Promise.resolve(undefined);
    const pending = running.get(kid);
    if (pending !== undefined) return pending;
    if (!budget(at)) return Promise.resolve(undefined);
    const started = fetchOnce(kid, at).finally(() => running.delete(kid));
    running.set(kid, started);
    return started;
  };
}
