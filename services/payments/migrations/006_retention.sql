-- Nothing grows without bound: published outbox rows are pruned in small batches
-- (startPruner), oldest first, through this index (forgotten Idempotency-Keys use
-- idempotency_keys_created, migration 002).
create index outbox_published on outbox (published_at) where published_at is not null;
