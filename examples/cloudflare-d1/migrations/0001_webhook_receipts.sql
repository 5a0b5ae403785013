CREATE TABLE IF NOT EXISTS "webhook_receipts" (
  provider VARCHAR(160) NOT NULL,
  external_id VARCHAR(160) NOT NULL,
  status VARCHAR(16) NOT NULL,
  response TEXT NULL,
  fingerprint VARCHAR(64) NULL,
  attempts INTEGER NOT NULL,
  error TEXT NULL,
  claimed_at INTEGER NOT NULL,
  finished_at INTEGER NULL,
  CONSTRAINT "webhook_receipts_pkey" PRIMARY KEY (provider, external_id),
  CONSTRAINT "webhook_receipts_status_check" CHECK (status IN ('processing', 'completed', 'failed'))
);

CREATE INDEX IF NOT EXISTS "webhook_receipts_status_idx" ON "webhook_receipts" (status, claimed_at);

CREATE INDEX IF NOT EXISTS "webhook_receipts_finished_idx" ON "webhook_receipts" (finished_at);

CREATE INDEX IF NOT EXISTS "webhook_receipts_claimed_idx" ON "webhook_receipts" (claimed_at, provider, external_id);

CREATE TABLE IF NOT EXISTS "webhook_receipts_ignored" (
  provider VARCHAR(160) NOT NULL,
  event_type VARCHAR(160) NOT NULL,
  hour_start INTEGER NOT NULL,
  events BIGINT NOT NULL,
  CONSTRAINT "webhook_receipts_ignored_pkey" PRIMARY KEY (provider, event_type, hour_start)
);

CREATE INDEX IF NOT EXISTS "webhook_receipts_ign_hour" ON "webhook_receipts_ignored" (hour_start);
