/**
 * @module What the signers share: reading their options, the body bytes of a payload, HMACs as
 * providers spell them, the forger's credentials, and the time formats providers sign.
 */
import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';
import type { Draft, SignerOptions } from './delivery';

/** A payload: an object or array (sent as its JSON), or the exact text or bytes to send. */
export type Payload = object | string | Uint8Array;

/** A signing secret; where the preset takes several, each is one (the signer signs with the first, or with each where the provider sends one signature per secret). */
export type Secrets = string | readonly string[];

/** The exact bytes of a payload: JSON for an object, the text or bytes as they are otherwise. */
export function bytesOf(payload: Payload): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  return Buffer.from(JSON.stringify(payload), 'utf8');
}

/** The payload as an object the signer may add a provider's own field to, or `undefined` for text and bytes. */
export function objectOf(payload: Payload): Record<string, unknown> | undefined {
  if (typeof payload === 'string' || payload instanceof Uint8Array || Array.isArray(payload))
    return undefined;
  return payload as Record<string, unknown>;
}

/** Fails unless the signer was given an options object. */
export function optionsOf<T extends object>(signer: string, options: T | undefined): T {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', `testing.${signer}() needs an options object`);
  return options;
}

/** A required non-empty string option. */
export function text(signer: string, option: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new ConfigError(option, `testing.${signer}() needs "${option}" as a non-empty string`);
  return value;
}

/** Every secret of a {@link Secrets} option, checked. */
export function secretsOf(signer: string, option: string, value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0)
    throw new ConfigError(option, `testing.${signer}() needs at least one "${option}"`);
  return list.map((one) => text(signer, option, one));
}

/** The signer's clock and the URL it is called at (`https://example.com/webhooks/<provider>` by default). */
export function placeOf(
  signer: string,
  options: SignerOptions,
  fallbackPath = `/webhooks/${signer}`,
): { url: string; clock: () => number } {
  const { url, clock } = options;
  if (clock !== undefined && typeof clock !== 'function')
    throw new ConfigError(
      'clock',
      `testing.${signer}() needs "clock" as a function returning milliseconds`,
    );
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(String(url)))
    throw new ConfigError('url', `testing.${signer}() needs "url" as an absolute http(s) URL`);
  return { url: url ?? `https://example.com${fallbackPath}`, clock: clock ?? Date.now };
}

/** A secret no preset is given: the forger's. */
export const forgedSecret = (secret: string): string => `forged-${secret}`.slice(0, 256);

/** HMAC of `parts` in order (strings as UTF-8). */
export function mac(
  algorithm: 'sha1' | 'sha256' | 'sha512',
  key: string | Buffer,
  parts: readonly (string | Buffer)[],
): Buffer {
  const hmac = createHmac(algorithm, key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** Unix seconds of a time in milliseconds, as providers sign them. */
export const seconds = (at: number): number => Math.floor(at / 1000);

/** `Authorization: Basic …` for a login and password. */
export const basic = (login: string, password: string): string =>
  `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`;

/** The content-type a JSON delivery carries. */
export const JSON_TYPE = { 'content-type': 'application/json' } as const;
/** A JSON POST of `body` to `url` with `headers` besides its content-type: what most signers draft. */
export const jsonPost = (
  url: string,
  body: Draft['body'],
  headers: Record<string, string>,
): Draft => ({
  url,
  body,
  headers: { ...JSON_TYPE, ...headers },
});
/** The content-type a form delivery carries. */
export const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' } as const;

const forgers = new Map<string, KeyObject>();

/** A private key of `type` made on first use (the forger's, or a signer's own): never a preset's. */
export function madeKey(name: string, make: () => KeyObject): KeyObject {
  let key = forgers.get(name);
  if (key === undefined) {
    key = make();
    forgers.set(name, key);
  }
  return key;
}

/** The forger's RSA key (2048 bits), made on first use. */
export const rsaForger = (): KeyObject =>
  madeKey('rsa-forger', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
