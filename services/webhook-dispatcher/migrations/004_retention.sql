-- Nothing grows without bound: published outbox rows, and finished deliveries with their
-- attempts once DEDUP_RETENTION_MS has passed (longer than the PAYMENTS stream keeps an
-- event, so a replay never meets an event whose delivery was forgotten), are pruned in
-- small batches (startPruner), oldest first, through these indexes.
create index outbox_published on outbox (published_at) where published_at is not null;
create index deliveries_finished on deliveries (updated_at) where state <> 'pending';
