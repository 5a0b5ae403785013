/**
 * @module The raw-body HMAC presets `send` signs for (the `hmac()` family's catalogue B): each
 * under `--secret`, its provider's own secret named; a batched one sends a one-item batch unless
 * `--body` holds several.
 */
import * as kit from '@webhook-idempotency/providers/testing';
import { bySecret, oneBatch, oneEvent } from './signed-with';
import type { Wired } from './wired';

/** The presets of this module, by preset factory name. */
export const BODY_HMAC: Readonly<Record<string, Wired>> = {
  line: bySecret(kit.line, 'channelSecret', oneBatch),
  notion: bySecret(kit.notion, 'verificationToken', oneEvent, 'token'),
  gocardless: bySecret(kit.gocardless, 'secret', oneBatch),
  viber: bySecret(kit.viber, 'authToken', oneEvent),
  woocommerce: bySecret(kit.woocommerce, 'secret', oneEvent),
};
