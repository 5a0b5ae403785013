/**
 * @module The credentials `send` signs with, one flag each: `--secret` (a shared secret, token or
 * HMAC key), `--username`/`--password` (HTTP Basic), `--key-file` (a private key PEM, where the
 * provider signs with a key pair and the preset holds the public key), `--public-key` (Braintree's
 * public key id), `--webhook-id` (PayPal), and the headers a generic `hmac` preset reads.
 */
import { readFileSync } from 'node:fs';
import { CliError, ExitCode } from '../exit-codes';

/** What `send` was given to sign with, as its flags hold them. */
export interface Credentials {
  readonly secret?: string;
  readonly username?: string;
  readonly password?: string;
  /** The path of a private key PEM file. */
  readonly keyFile?: string;
  readonly publicKey?: string;
  readonly webhookId?: string;
  readonly certUrl?: string;
  readonly signatureHeader?: string;
  readonly idHeader?: string;
}

/** The flag of each credential, for the errors that name a missing one. */
const FLAGS: Readonly<Record<keyof Credentials, string>> = {
  secret: '--secret',
  username: '--username',
  password: '--password',
  keyFile: '--key-file',
  publicKey: '--public-key',
  webhookId: '--webhook-id',
  certUrl: '--cert-url',
  signatureHeader: '--signature-header',
  idHeader: '--id-header',
};

/** The credential `name`, or a usage error saying `preset` needs it and what it is. */
export function need(
  preset: string,
  given: Credentials,
  name: keyof Credentials,
  what: string,
): string {
  const value = given[name];
  if (value === undefined || value === '')
    throw new CliError(
      ExitCode.USAGE,
      `${preset} needs ${FLAGS[name]} <${what}>: the preset's own.`,
    );
  return value;
}

/** The PEM text of `--key-file`, or a usage error naming the file. */
export function privateKeyPem(preset: string, given: Credentials, what: string): string {
  const path = need(preset, given, 'keyFile', what);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(
      ExitCode.USAGE,
      `Cannot read --key-file ${path}: ${(error as Error).message}`,
    );
  }
}

/**
 * HTTP Basic credentials: `--username`/`--password`, or `--secret user:password`, or `--secret`
 * alone as the password of `login` where the provider has a fixed login (Payme's `Paycom`).
 */
export function basicPair(preset: string, given: Credentials, login?: string): [string, string] {
  if (given.password !== undefined) {
    const user = given.username ?? login;
    if (user === undefined)
      throw new CliError(ExitCode.USAGE, `${preset} signs with HTTP Basic: pass --username too.`);
    return [user, given.password];
  }
  const secret = given.secret;
  if (secret === undefined)
    throw new CliError(
      ExitCode.USAGE,
      `${preset} signs with HTTP Basic: pass --username and --password (or --secret user:password).`,
    );
  const colon = secret.indexOf(':');
  if (colon > 0) return [secret.slice(0, colon), secret.slice(colon + 1)];
  if (login !== undefined) return [login, secret];
  throw new CliError(
    ExitCode.USAGE,
    `${preset} signs with HTTP Basic: pass --username and --password (or --secret user:password).`,
  );
}

/** The items of a batch: the payload's array, a one-item batch of an object, or `--body`'s JSON read so. */
export function itemsOf(preset: string, payload: object): object[] {
  let value: unknown = payload;
  if (Buffer.isBuffer(payload)) {
    try {
      value = JSON.parse(payload.toString('utf8'));
    } catch {
      throw new CliError(ExitCode.USAGE, `${preset} sends a JSON batch: --body must be JSON.`);
    }
  }
  if (Array.isArray(value)) return value as object[];
  if (typeof value === 'object' && value !== null) return [value];
  throw new CliError(ExitCode.USAGE, `${preset} sends a batch: a JSON array or one object.`);
}

/** `--body`'s bytes as a JSON object, where the kit signer takes one. */
export function objectOf(preset: string, payload: object): object {
  if (!Buffer.isBuffer(payload)) return payload;
  try {
    return JSON.parse(payload.toString('utf8')) as object;
  } catch {
    throw new CliError(ExitCode.USAGE, `${preset} sends a JSON object: --body must be JSON.`);
  }
}
