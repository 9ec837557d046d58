-- Nothing grows without bound: finished deliveries with their attempts once
-- DEDUP_RETENTION_MS has passed (longer than the PAYMENTS stream keeps an event, so a
-- replay never meets an event whose delivery was forgotten) are pruned in small batches
-- (startPruner), oldest first, through this index (published outbox rows through the
-- platform's, libs/platform/sql/outbox.sql).
create index deliveries_finished on deliveries (updated_at) where state <> 'pending';
