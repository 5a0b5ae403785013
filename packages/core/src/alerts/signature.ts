/**
 * @module How `signedWebhook` signs an alert, in the Standard Webhooks form so that any of its
 * libraries verifies it: headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the bytes of a
 * `whsec_`-prefixed base64 secret. `verifyAlertSignature` is the receiving side, for Node.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../errors';
import type { Alert } from './types';

/** The shortest key accepted (Standard Webhooks: 24 to 64 bytes). */
const MIN_KEY_BYTES = 24;

/** A `whsec_` secret's key bytes. @throws {ConfigError} naming `secret` when it is not one. */
export function alertSigningKey(secret: unknown, option = 'secret'): Buffer {
  const encoded = typeof secret === 'string' && secret.startsWith('whsec_') ? secret.slice(6) : '';
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < MIN_KEY_BYTES || key.length > 64)
    throw new ConfigError(
      option,
      `must be "whsec_" and the base64 of ${MIN_KEY_BYTES} to 64 random bytes ("whsec_" + crypto.randomBytes(32).toString('base64'))`,
    );
  return key;
}

/** A notice's id: the same for every try of one notice (a receiver may drop repeats), another for each notice. */
export function noticeId(alert: Alert): string {
  const digest = createHash('sha256')
    .update(`${alert.id}\n${alert.state}\n${alert.startedAt.getTime()}`)
    .digest('hex');
  return `msg_${digest.slice(0, 32)}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signature(key: Buffer, id: string, timestamp: number, body: Buffer): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** What {@link verifyAlertSignature} checks. */
export interface VerifyAlertInput {
  /** The request's headers (lower-case names, as Node gives them). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request's exact bytes. */
  readonly body: Buffer;
  /** The `whsec_` secret given to `signedWebhook`. */
  readonly secret: string;
  /** How far the timestamp may be from now, in seconds. Defaults to 300. */
  readonly toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds. Defaults to `Date.now()`. */
  readonly now?: number;
}

const one = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * True when an alert POST carries a valid signature of its body made with `secret`, and a
 * timestamp within the tolerance (a replayed old request is refused).
 * @example
 * if (!verifyAlertSignature({ headers: req.headers, body: rawBody, secret })) return res.sendStatus(401);
 * @throws {ConfigError} naming `secret` when it is not a `whsec_` secret.
 */
export function verifyAlertSignature(input: VerifyAlertInput): boolean {
  const key = alertSigningKey(input.secret);
  const id = one(input.headers['webhook-id']);
  const timestamp = Number(one(input.headers['webhook-timestamp']));
  const signatures = one(input.headers['webhook-signature']);
  if (!id || !Number.isSafeInteger(timestamp) || !signatures) return false;
  const now = (input.now ?? Date.now()) / 1000;
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signature(key, id, timestamp, input.body));
  return signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
