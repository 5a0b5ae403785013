-- The shop's tables, as `prisma migrate dev` writes them for prisma/schema.prisma.
CREATE TABLE "orders" (
    "id" VARCHAR(64) NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" VARCHAR(8) NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'open',

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "payments" (
    "payment_intent" VARCHAR(64) NOT NULL,
    "order_id" VARCHAR(64) NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" VARCHAR(8) NOT NULL,
    "event_id" VARCHAR(64) NOT NULL,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("payment_intent")
);

ALTER TABLE "payments" ADD CONSTRAINT "payments_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The receipts table of @webhook-idempotency/sql, pasted from
-- `webhook-idempotency migrate --print --url "$DATABASE_URL"` (test/prisma-stripe.test.ts checks it
-- matches Schema.statements('postgres')).
CREATE TABLE IF NOT EXISTS "webhook_receipts" (
  provider VARCHAR(160) COLLATE "C" NOT NULL,
  external_id VARCHAR(160) COLLATE "C" NOT NULL,
  status VARCHAR(16) NOT NULL,
  response TEXT NULL,
  fingerprint VARCHAR(64) NULL,
  attempts INTEGER NOT NULL,
  error TEXT NULL,
  claimed_at TIMESTAMPTZ(3) NOT NULL,
  finished_at TIMESTAMPTZ(3) NULL,
  CONSTRAINT "webhook_receipts_pkey" PRIMARY KEY (provider, external_id),
  CONSTRAINT "webhook_receipts_status_check" CHECK (status IN ('processing', 'completed', 'failed'))
);

CREATE INDEX IF NOT EXISTS "webhook_receipts_status_idx" ON "webhook_receipts" (status, claimed_at);

CREATE INDEX IF NOT EXISTS "webhook_receipts_finished_idx" ON "webhook_receipts" (finished_at);

CREATE INDEX IF NOT EXISTS "webhook_receipts_claimed_idx" ON "webhook_receipts" (claimed_at, provider, external_id);
