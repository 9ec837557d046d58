-- The trace context of the payment outcome a delivery came from, so each attempt joins
-- the trace of the payment it reports (the outbox's own column is the platform's:
-- libs/platform/sql/outbox.sql).
alter table deliveries add column trace_carrier jsonb;
