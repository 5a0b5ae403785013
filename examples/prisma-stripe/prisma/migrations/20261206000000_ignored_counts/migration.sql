CREATE TABLE IF NOT EXISTS "webhook_receipts_ignored" (
  provider VARCHAR(160) COLLATE "C" NOT NULL,
  event_type VARCHAR(160) COLLATE "C" NOT NULL,
  hour_start TIMESTAMPTZ(3) NOT NULL,
  events BIGINT NOT NULL,
  CONSTRAINT "webhook_receipts_ignored_pkey" PRIMARY KEY (provider, event_type, hour_start)
);

CREATE INDEX IF NOT EXISTS "webhook_receipts_ign_hour" ON "webhook_receipts_ignored" (hour_start);
