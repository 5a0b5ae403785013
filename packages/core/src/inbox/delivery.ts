/** @module A delivery as the inbox endpoint stores it and as a worker gets it. */

/** What the inbox endpoint stores: the verified bytes and the allow-listed headers of one delivery. */
export interface NewDelivery {
  /** The receipts' provider (`'stripe'`). */
  readonly provider: string;
  /** The provider's id for the delivery (Stripe `event.id`); with `provider`, the unique key. */
  readonly externalId: string;
  /** Deliveries with the same provider and ordering key are processed one at a time, in receipt order; `null`: no order. */
  readonly orderingKey: string | null;
  /** The allow-listed request headers, lower-cased names (never `authorization` or cookies). */
  readonly headers: Readonly<Record<string, string>>;
  /** The request body, exactly the bytes the signature was verified on. */
  readonly body: Buffer;
}

/** A stored delivery as a worker gets it. `id` and `attempts` together are the worker's lease. */
export interface Delivery extends NewDelivery {
  /** The store's sequence number: increasing in receipt order. */
  readonly id: number;
  /**
   * Claims so far, this one included (1 on the first); also the lease's fencing token, so it only
   * ever grows (a redelivery does not reset it).
   */
  readonly attempts: number;
  /**
   * Failed attempts before this one (since it was stored or last redelivered): what backoff and the
   * dead letter count. A handler that threw counts, and so does a lease that expired (its worker
   * died); a release (shutdown, another run holding the receipt) does not.
   */
  readonly failures: number;
  /** When the endpoint stored it (the database clock). */
  readonly receivedAt: Date;
}
