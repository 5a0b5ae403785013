/**
 * @module The store's writes to a receipt, each one conditional request: the claim, the
 * take-over, and the two fenced settlements. Built here,
 * sent by the store (a settlement also inside a `TransactWriteItems`).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { KeyLike } from '@webhook-idempotency/core';
import { expressed, type Expressed, type Item, keyOf, LIVE, N, NULL, nowSeconds, S } from './item';

/** An `UpdateItem` of a receipt, without its table. */
export type ReceiptUpdate = Expressed & {
  readonly Key: Item;
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
};

const fingerprintValue = (fingerprint: string | null): AttributeValue =>
  fingerprint === null ? NULL : S(fingerprint);

/**
 * The claim: a conditional `PutItem` of a new `processing` receipt, on the condition that the key
 * has none, or only an expired one (TTL passed, not yet deleted by DynamoDB). Refused, it answers
 * the receipt there (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) in the same round trip. A
 * refused claim that finds its own `token` was resent by the SDK after a lost answer: it was won.
 */
export function claimPut(
  key: KeyLike,
  now: number,
  fingerprint: string | null,
  token: string,
): Expressed & { readonly Item: Item; readonly ConditionExpression: string } {
  const ConditionExpression = 'attribute_not_exists(#id) OR #expiresAt <= :nowSeconds';
  return {
    Item: {
      ...keyOf(key),
      provider: S(key.provider),
      externalId: S(key.externalId),
      status: S('processing'),
      attempts: N(1),
      claimedAt: N(now),
      fingerprint: fingerprintValue(fingerprint),
      claimToken: S(token),
    },
    ConditionExpression,
    ...expressed([ConditionExpression], { ':nowSeconds': nowSeconds(now) }),
  };
}

/**
 * The take-over: `processing` again with `attempts + 1`, on the condition that `attempts` is still
 * the one seen and the receipt is `failed`, or `processing` with a claim at least `staleAfterMs`
 * old by the caller's clock. Clears the last run's outcome and TTL.
 */
export function reclaimUpdate(
  key: KeyLike,
  input: {
    readonly now: number;
    readonly attempts: number;
    readonly staleAfterMs: number;
    readonly fingerprint?: string | null;
  },
  token: string,
): ReceiptUpdate {
  const { now, attempts, staleAfterMs, fingerprint } = input;
  const fingerprintSet = fingerprint === undefined ? '' : ', #fingerprint = :fingerprint';
  const UpdateExpression = `SET #status = :processing, #attempts = #attempts + :one, #claimedAt = :now, #claimToken = :claimToken${fingerprintSet} REMOVE #error, #finishedAt, #response, #expiresAt`;
  const ConditionExpression = `#attempts = :attempts AND (#status = :failed OR (#status = :processing AND #claimedAt <= :staleBefore)) AND ${LIVE}`;
  return {
    Key: keyOf(key),
    UpdateExpression,
    ConditionExpression,
    ...expressed([UpdateExpression, ConditionExpression], {
      ':processing': S('processing'),
      ':failed': S('failed'),
      ':one': N(1),
      ':now': N(now),
      ':claimToken': S(token),
      ':attempts': N(attempts),
      ':staleBefore': N(now - Math.max(0, Math.ceil(staleAfterMs))),
      ':nowSeconds': nowSeconds(now),
      ...(fingerprint === undefined ? {} : { ':fingerprint': fingerprintValue(fingerprint) }),
    }),
  };
}

/** What a settlement writes, and the claim it is fenced by. */
export interface Settlement {
  readonly now: number;
  readonly attempts: number;
  readonly claimedAt?: Date;
  readonly status: 'completed' | 'failed';
  /** The response (completed) or the error text (failed). */
  readonly value: string;
  /** Milliseconds the finished receipt is kept (its TTL), or `undefined` for no TTL attribute. */
  readonly retentionMs: number | undefined;
  /** This call's own token, written with it: a resent copy of the request finds it. */
  readonly token: string;
}

/**
 * `completed` with the response, or `failed` with the error, and `finishedAt = now` (and the TTL
 * attribute), on the condition that the receipt is `processing` with exactly this claim's
 * `attempts` and, when given, `claimedAt`.
 */
export function settleUpdate(key: KeyLike, settlement: Settlement): ReceiptUpdate {
  const { now, attempts, claimedAt, status, value, retentionMs, token } = settlement;
  const field = status === 'completed' ? 'response' : 'error';
  const ttl = retentionMs === undefined ? '' : ', #expiresAt = :expiresAt';
  const UpdateExpression = `SET #status = :status, #${field} = :value, #finishedAt = :now, #settleToken = :settleToken${ttl}`;
  const fence = claimedAt === undefined ? '' : ' AND #claimedAt = :claimedAt';
  const ConditionExpression = `#status = :processing AND #attempts = :attempts${fence}`;
  return {
    Key: keyOf(key),
    UpdateExpression,
    ConditionExpression,
    ...expressed([UpdateExpression, ConditionExpression], {
      ':status': S(status),
      ':value': S(value),
      ':now': N(now),
      ':settleToken': S(token),
      ':processing': S('processing'),
      ':attempts': N(attempts),
      ...(claimedAt === undefined ? {} : { ':claimedAt': N(claimedAt.getTime()) }),
      ...(retentionMs === undefined
        ? {}
        : { ':expiresAt': N(Math.ceil((now + retentionMs) / 1000)) }),
    }),
  };
}

/**
 * True when `item` (the receipt a refused settlement found) carries this settlement's own token:
 * the SDK resent a request whose answer was lost, and its first copy was written.
 */
export const alreadySettled = (item: Item | undefined, settlement: Settlement): boolean =>
  item?.settleToken?.S === settlement.token;
