/**
 * @module The timestamped-HMAC check of Stripe, Slack, Paddle and Standard Webhooks, in one place:
 * the signed timestamp must be fresh, then HMAC-SHA256 over the signed parts must match a sent
 * signature, compared in constant time.
 */
import {
  hmacMatches,
  isFresh,
  parseStamp,
  type SignatureEncoding,
  type SignedParts,
  type StampUnit,
} from './signature';

/** Settings of a {@link timestampedHmac} check, fixed when the preset is built. */
export interface TimestampedHmacOptions {
  /** How the provider spells its signatures. */
  encoding: SignatureEncoding;
  /** How the provider writes the signed time. Defaults to `'s'`, decimal Unix seconds. */
  stamp?: StampUnit;
  /** Accepted distance between the signed timestamp and now, in either direction. */
  toleranceSeconds: number;
  /** Milliseconds since the epoch (the preset's injectable clock). */
  now: () => number;
}

/** What a preset read from one request's headers. */
export interface TimestampedSignature {
  /**
   * The signed timestamp exactly as sent; only the check's `stamp` unit can pass (decimal Unix
   * seconds up to 12 digits by default; milliseconds up to 15; a zoned ISO-8601 date-time).
   */
  stamp: string | undefined;
  /** The signatures sent, without their scheme prefix; any one may match (secret rotation). None fails. */
  signatures: readonly string[];
  /**
   * What the provider signs, given the timestamp as sent and as parsed seconds (fractional for
   * milliseconds), e.g.
   * ``(stamp) => [`v0:${stamp}:`, rawBody]``. Called only once the timestamp is known to be fresh.
   */
  signed(stamp: string, seconds: number): SignedParts;
}

/**
 * A built check: `true` only for a fresh timestamp and a matching signature under `key` (the
 * secret as a string, used as its UTF-8 bytes, or already decoded bytes).
 */
export type TimestampedHmacCheck = (
  key: string | Buffer,
  signature: TimestampedSignature,
) => boolean;

/**
 * Builds the check shared by every preset whose provider signs a timestamp together with the
 * body. In order: the stamp must parse in the check's unit and lie within `toleranceSeconds` of
 * `now()` (a stamp from the future beyond it fails too); then HMAC-SHA256 of `signed(...)` under
 * the key must equal one of `signatures` in `encoding`, compared in constant time.
 * @example
 * const check = timestampedHmac({ encoding: 'hex', toleranceSeconds: 300, now: Date.now });
 * check(secret, { stamp: '1715678400', signatures: [hex], signed: (stamp) => [`${stamp}.`, rawBody] });
 */
export function timestampedHmac(options: TimestampedHmacOptions): TimestampedHmacCheck {
  const { encoding, toleranceSeconds, now, stamp: unit = 's' } = options;
  return function checkTimestampedHmac(key, { stamp, signatures, signed }) {
    const seconds = parseStamp(unit, stamp);
    if (stamp === undefined || seconds === undefined || signatures.length === 0) return false;
    if (!isFresh(seconds, now(), toleranceSeconds)) return false;
    return hmacMatches(key, signed(stamp, seconds), signatures, encoding);
  };
}
