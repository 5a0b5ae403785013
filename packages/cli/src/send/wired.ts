/**
 * @module The shapes `send`'s signers share (a request to sign, a wired preset, the delivery it
 * makes), apart from the signers so both files of them read these without importing each other.
 */
import type * as kit from '@webhook-idempotency/providers/testing';
import type { Credentials } from './credentials';

/** A delivery as the kit makes it: what `send` posts, and its retry. */
export type Delivery = kit.Delivery;

/** What one send asks for. */
export interface SendRequest {
  /** The preset factory's name, for the errors. */
  readonly preset: string;
  /** The credentials given as flags. */
  readonly credentials: Credentials;
  /** The event type or operation (`push`, `orders/create`, `prepare`, `check`). */
  readonly event: string;
  /** The delivery's id, where the provider sends it in a header (GitHub, Shopify). */
  readonly id: string;
  /** Where it goes: the kit signs it where the provider signs the URL. */
  readonly url: string;
  /** An object (sent as its JSON; Click: its form fields) or the exact bytes of `--body`. */
  readonly payload: object;
}

/** A preset `send` can sign for: the flags it needs, and how a delivery is made. */
export interface Wired {
  /** The flags it signs with, for `--list` and `--help`: `--secret <secret>`. */
  readonly needs: string;
  sign(request: SendRequest): Delivery;
}
