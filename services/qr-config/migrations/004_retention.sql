-- Processed event ids are kept DEDUP_RETENTION_MS (longer than PAYMENTS keeps an event:
-- a replay never meets an event whose id was forgotten), then pruned in small batches,
-- oldest first.
create index processed_events_at on processed_events (processed_at);
